// Random rule trees (any path, hostile ones included, any operator) over random documents: an evaluation
// answers a boolean or stops with EXPRESSION_BUDGET_EXCEEDED naming the rule, and the whole tree shares one
// budget however many rules it holds. Saving refuses what evaluation would refuse to run for long. Budgets
// are small and documents at most a few thousand values, so the file runs in about a second.
import fc from 'fast-check';
import { DomainError, ErrorCode } from '../errors';
import { ExpressionMeter } from './json-path-budget';
import { anyDocument, jsonPath } from './json-path.testing';
import { evaluateRules, MAX_RULES, RULE_OPERATORS, ruleIssues } from './rules';

const hostilePath = fc
  .array(fc.constantFrom('..a', '..*', '[*]', '..[?(@.v >= 0)]'), { minLength: 2, maxLength: 6 })
  .map((parts) => `$${parts.join('')}`);

const descents = fc
  .array(fc.constantFrom('..a', '..*', '..[?(@.v >= 0)]', '[*]..b'), { minLength: 2, maxLength: 5 })
  .map((parts) => `$${parts.join('')}`);

const leaf = fc.record({
  path: fc.oneof(
    jsonPath.map((path) => path.text),
    hostilePath,
  ),
  operator: fc.constantFrom(...RULE_OPERATORS),
  value: fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('x', '^a', 'ab'),
    fc.boolean(),
    fc.constant(null),
    fc.constant({ v: 1 }),
    fc.constant([1, 2]),
  ),
});

const tree: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ all: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ any: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
  ),
})).node;

const BUDGET = { maxNodesVisited: 20_000, maxResults: 2_000 };
const RULE_FIELD = /^filter_rules(\.(all|any)\[\d+\])*\.path$/;

describe('Filter rules (properties)', () => {
  it('answer a boolean, or EXPRESSION_BUDGET_EXCEEDED naming the rule, inside one budget for the whole tree', () => {
    fc.assert(
      fc.property(tree, anyDocument, (rules, data) => {
        const meter = new ExpressionMeter(BUDGET);
        try {
          expect(typeof evaluateRules(rules, data, meter)).toBe('boolean');
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(ErrorCode.ExpressionBudgetExceeded);
          expect((error as DomainError).details.field).toMatch(RULE_FIELD);
          expect(JSON.stringify(rules)).toContain(JSON.stringify((error as DomainError).details.path));
        }
        // One charge may pass the line by one value's children (at most 3,000 here), never by more.
        expect(meter.visited).toBeLessThanOrEqual(BUDGET.maxNodesVisited + 3001);
      }),
      { numRuns: 300 },
    );
  });

  it('are refused at save, naming the path, when a rule fans out with several recursive descents', () => {
    fc.assert(
      fc.property(tree, descents, (rules, hostile) => {
        const withHostile = { all: [rules, { path: hostile, operator: 'exists' }] };
        const issues = ruleIssues(withHostile);
        expect(issues).toContainEqual(
          expect.objectContaining({
            code: ErrorCode.ValidationFailed,
            field: 'filter_rules.all[1].path',
            message: expect.stringMatching(/recursive descents/),
          }),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('hold at most MAX_RULES rules', () => {
    const many = (count: number) => ({ any: Array.from({ length: count }, (_, i) => ({ path: `$.a${i}`, operator: 'exists' })) });
    expect(ruleIssues(many(MAX_RULES))).toEqual([]);
    expect(ruleIssues(many(MAX_RULES + 1))).toEqual([
      expect.objectContaining({ field: 'filter_rules', message: expect.stringContaining(`at most ${MAX_RULES}`) }),
    ]);
  });

  it('judge any JSON as rules without throwing: each problem names a field under filter_rules', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (rules) => {
        for (const issue of ruleIssues(rules)) expect(issue.field).toMatch(/^filter_rules/);
      }),
      { numRuns: 300 },
    );
  });
});

import { jsonSchemaErrors, jsonSchemaProblem } from '../definition/json-schema';
import { linearRegexProblem, linearTest, MAX_PATTERN_LENGTH } from './linear-regex';
import { evaluateRules, ruleIssues } from './rules';

const CATASTROPHIC = '^(a+)+$';

describe(linearTest.name, () => {
  it('matches as RegExp#test does', () => {
    expect(linearTest('^order\\.(created|paid)$', 'order.paid')).toBe(true);
    expect(linearTest('pa', 'order.paid')).toBe(true);
    expect(linearTest('(?i)PAID', 'order.paid')).toBe(true);
    expect(linearTest('^paid$', 'order.paid')).toBe(false);
  });

  it('runs a pattern that makes a backtracking engine explode in linear time', () => {
    for (const input of ['a'.repeat(33) + '!', 'a'.repeat(100_000) + '!']) {
      const started = process.hrtime.bigint();
      expect(linearTest(CATASTROPHIC, input)).toBe(false);
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
    }
  });

  it('refuses what RE2 cannot run, and patterns over the length cap', () => {
    expect(linearRegexProblem('(a)\\1')).toContain('RE2');
    expect(linearRegexProblem('foo(?=bar)')).toContain('RE2');
    expect(linearRegexProblem('a'.repeat(MAX_PATTERN_LENGTH + 1))).toContain(`at most ${MAX_PATTERN_LENGTH}`);
    expect(linearRegexProblem(CATASTROPHIC)).toBeNull();
  });
});

describe('patterns in rules and schemas', () => {
  it('refuses a filter rule whose pattern RE2 cannot run, and evaluates the others in RE2', () => {
    expect(ruleIssues({ path: '$.type', operator: 'matches', value: '(x)\\1' })).toEqual([
      expect.objectContaining({ field: 'filter_rules.value' }),
    ]);
    expect(evaluateRules({ path: '$.name', operator: 'matches', value: CATASTROPHIC }, { name: 'a'.repeat(50_000) + '!' })).toBe(false);
  });

  it('compiles schema patterns with RE2: a lookaround is a schema problem, the catastrophic one is quick', () => {
    expect(jsonSchemaProblem({ type: 'string', pattern: '^(?!admin)' })).toContain('RE2');
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } };
    expect(jsonSchemaErrors(schema, { code: 'a'.repeat(100_000) + '!' })).toEqual([`code must match the pattern ${CATASTROPHIC}`]);
    expect(jsonSchemaErrors(schema, { code: 'aaa' })).toEqual([]);
  });

  it('keeps each pattern of a schema its own', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } } };
    expect(jsonSchemaErrors(schema, { a: 'aa', b: 'bb' })).toEqual([]);
    expect(jsonSchemaErrors(schema, { a: 'bb', b: 'aa' })).toEqual(['a must match the pattern ^a+$', 'b must match the pattern ^b+$']);
  });
});

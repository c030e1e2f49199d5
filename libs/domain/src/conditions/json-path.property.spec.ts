// Random documents (small, deep and wide) against random paths of the JSONPath workflows use. Our
// evaluator agrees with jsonpath-plus, the engine users' paths were written for, wherever the two define
// the same thing; every evaluation stays inside its budget, counted by the meter rather than timed; a
// path saving accepts does work linear in the data; and a hostile path over deep data stops with the coded
// error. Each case is small (documents of at most a few thousand values, budgets of at most 200,000 visits),
// so the file runs in a few seconds.
import fc from 'fast-check';
import { JSONPath } from 'jsonpath-plus';
import { DomainError, ErrorCode } from '../errors';
import { anyDocument, document, jsonPath as path, sizeOf } from './json-path.testing';
import { ExpressionMeter, type ExpressionBudget } from './json-path-budget';
import { queryJsonPath } from './json-path-query';
import { jsonPathProblem, MAX_RECURSIVE_DESCENTS, parseJsonPath } from './json-path-syntax';

const SMALL: ExpressionBudget = { maxNodesVisited: 20_000, maxResults: 2_000 };

/** The query's results, or the code of the DomainError it stopped with. */
function outcome(data: unknown, text: string, meter: ExpressionMeter): unknown[] | string {
  try {
    return queryJsonPath(data, text, meter);
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('JSONPath evaluation (properties)', () => {
  it('agrees with jsonpath-plus on the syntax both read the same way', () => {
    fc.assert(
      fc.property(document, path, (data, { text, shared }) => {
        fc.pre(shared);
        const ours = queryJsonPath(data, text, new ExpressionMeter({ maxNodesVisited: 1e7, maxResults: 1e6 }));
        let theirs: unknown[];
        try {
          theirs = JSONPath({ path: text, json: data as object, wrap: true, eval: 'safe', ignoreEvalErrors: true }) as unknown[];
        } catch {
          // jsonpath-plus itself fails on a script that gives no index (`[(@.length-1)]` on an object): nothing to compare.
          return fc.pre(false);
        }
        // jsonpath-plus answers nothing at all for a root that is '', 0 or false; we answer the root.
        fc.pre(theirs !== undefined);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 400 },
    );
  });

  it('stays inside its budget on any path and any document: results, or EXPRESSION_BUDGET_EXCEEDED', () => {
    fc.assert(
      fc.property(anyDocument, path, (data, { text }) => {
        const meter = new ExpressionMeter(SMALL);
        const result = outcome(data, text, meter);
        if (typeof result === 'string') expect(result).toBe(ErrorCode.ExpressionBudgetExceeded);
        else expect(result.length).toBeLessThanOrEqual(SMALL.maxResults);
        // One charge may pass the line by what a single value holds (its children), never by more.
        expect(meter.visited).toBeLessThanOrEqual(SMALL.maxNodesVisited + 3001);
      }),
      { numRuns: 300 },
    );
  });

  it('does work linear in the data for a path saving accepts (no unions)', () => {
    fc.assert(
      fc.property(anyDocument, path, (data, { text }) => {
        fc.pre(jsonPathProblem(text) === null && !/,/.test(text));
        const meter = new ExpressionMeter({ maxNodesVisited: 1e7, maxResults: 1e6 });
        queryJsonPath(data, text, meter);
        const segments = parseJsonPath(text).length;
        expect(meter.visited).toBeLessThanOrEqual((segments + 2) * (sizeOf(data) + 1) * (text.length + 2));
      }),
      { numRuns: 300 },
    );
  });

  it('stops a path of several recursive descents over deep data with the coded error, having visited no more than its budget', () => {
    const descents = fc
      .integer({ min: 5, max: 8 })
      .chain((count) => fc.array(fc.constantFrom('..a', '..*'), { minLength: count, maxLength: count }));
    const deep = fc
      .integer({ min: 25, max: 31 })
      .map((depth) => Array.from({ length: depth }).reduce<unknown>((inner) => ({ a: inner, b: [{ v: 1 }, { v: 2 }] }), { v: 0 }));
    fc.assert(
      fc.property(deep, descents, (data, parts) => {
        const text = `$${parts.join('')}`;
        expect(jsonPathProblem(text)).toMatch(new RegExp(`${parts.length} recursive descents.*may have ${MAX_RECURSIVE_DESCENTS}`));
        const budget = { maxNodesVisited: 200_000, maxResults: 20_000 };
        const meter = new ExpressionMeter(budget);
        expect(outcome(data, text, meter)).toBe(ErrorCode.ExpressionBudgetExceeded);
        expect(meter.visited).toBeLessThanOrEqual(budget.maxNodesVisited + 10);
      }),
      { numRuns: 20 },
    );
  });

  it('reads any string as a path or refuses it, without throwing anything but its verdict', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc
        .array(
          fc.constantFrom('$', '.', '..', '[', ']', '*', '?(', '(', ')', '@', "'", '"', 'a', '0', '-', ':', ',', ' ', '==', '!', '&&'),
          { maxLength: 40 },
        )
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, document, (candidate, data) => {
        const problem = jsonPathProblem(candidate);
        if (problem === null) expect(Array.isArray(outcome(data, candidate, new ExpressionMeter(SMALL)))).toBe(true);
        else expect(typeof problem).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});

// node dist/bench/expressions.js (after npm run build): what a hostile filter rule costs on the API's event
// loop, before (jsonpath-plus, no bound) and now (our evaluator under the default ExpressionMeter budget).
// Issue #26: a rule with several recursive descents over a deep body held the API for 22 s.
import { performance } from 'node:perf_hooks';
import { JSONPath } from 'jsonpath-plus';
import { DomainError, ExpressionMeter, MAX_JSON_DEPTH, queryJsonPath } from '@app/domain';
import { table } from './support/table';

/** `{a: {a: ... {a: 1}}}`, `depth` objects deep, each with a few siblings. */
const chain = (depth: number, siblings = 0): unknown =>
  Array.from({ length: depth }).reduce<unknown>(
    (inner) => ({ a: inner, ...Object.fromEntries(Array.from({ length: siblings }, (_, i) => [`s${i}`, [i]])) }),
    1,
  );
/** About 1 MiB: an array of small objects, the widest body the default API_BODY_LIMIT_BYTES lets in. */
const wide = (): unknown => ({ items: Array.from({ length: 60_000 }, (_, i) => ({ id: i, tags: ['x'] })) });

const CASES: [string, unknown, string][] = [
  ['5 descents, 40 levels', chain(40), '$..a..a..a..a..a'],
  ['4 descents, 64 levels (the depth bodies had before)', chain(64), '$..a..a..a..a'],
  ['5 descents, deepest storable', chain(MAX_JSON_DEPTH - 1, 3), '$..a..a..a..a..a'],
  ['1 descent + 3 wildcards, deepest storable', chain(MAX_JSON_DEPTH - 1, 3), '$..*[*][*][*]'],
  ['$..id on 1 MiB wide body', wide(), '$..id'],
  ['filter over 1 MiB wide body', wide(), '$.items[?(@.id > 59990)].id'],
  ['$..* on 1 MiB wide body', wide(), '$..*'],
  ['a filter that spends the whole budget', wide(), '$..[?(@.id + @.id + @.id + @.id > 1e9 || @.tags[0] == "y")]'],
  ['a descent that spends the whole budget', { items: Array.from({ length: 150_000 }, () => [[1]]) }, '$..[0]'],
];

function timed(run: () => number): { ms: number; outcome: string } {
  const start = performance.now();
  let outcome: string;
  try {
    outcome = `${run()} results`;
  } catch (error) {
    outcome = error instanceof DomainError ? error.code : (error as Error).message.slice(0, 40);
  }
  return { ms: Math.round((performance.now() - start) * 10) / 10, outcome };
}

function main(): void {
  const rows = CASES.map(([name, data, path]) => {
    const meter = new ExpressionMeter();
    const now = timed(() => queryJsonPath(data, path, meter).length);
    // jsonpath-plus has no budget: each case runs once (a few seconds and up to 0.8 GB each; a 5-descent path on 48 levels ran out of a 4 GB heap).
    const before = process.argv.includes('--skip-old')
      ? { ms: NaN, outcome: 'skipped' }
      : timed(() => (JSONPath({ path, json: data as object, wrap: true, eval: 'safe' }) as unknown[]).length);
    return [name, path, before.ms, before.outcome, now.ms, now.outcome, meter.visited];
  });
  console.log(
    table(
      'JSONPath evaluation: jsonpath-plus (before) and ours under the default budget (now)',
      ['case', 'path', 'before ms', 'before', 'now ms', 'now', 'visited'],
      rows,
    ),
  );
}

main();

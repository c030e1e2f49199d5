// node --expose-gc dist/bench/schemas.js (after npm run build): what hostile schemas and schedules cost now.
// Issue #26: a dry run of a step whose output_schema's smallest instance was gigabytes built it and killed
// the worker (heap exhausted), then the next; `@every 1s` passed the schedule floor.
// - exampleOf on the worst schemas we could write: time, and the heap the example holds;
// - the one validator (userSchemaProblem) on the largest schemas it accepts and on those it refuses;
// - reading a cron and finding its closest fires.
import { performance } from 'node:perf_hooks';
import { DomainError, EXAMPLE_MAX_BYTES, exampleOf, SCHEMA_LIMITS, userSchemaProblem } from '@app/domain';
import { CronProblem, readCron } from '../libs/domain/src/schedules/cron-timing';
import { smallestGapSeconds } from '../libs/domain/src/schedules/fire-gap';
import { table } from './support/table';

const gc = (globalThis as { gc?: () => void }).gc;

/** Arrays of `levels` levels, each of at least `minItems`, around a string of at least `minLength`. */
const nested = (levels: number, minItems: number, minLength: number): object =>
  Array.from({ length: levels }).reduce<object>((inner) => ({ type: 'array', minItems, items: inner }), { type: 'string', minLength });
/** `levels` levels of objects with `width` optional properties each, each the level below. */
const wideTree = (levels: number, width: number): object =>
  Array.from({ length: levels }).reduce<object>(
    (inner) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`p${i}`, inner])) }),
    { type: 'string' },
  );
const laughs = (levels: number) => ({
  definitions: Object.fromEntries([
    ['a0', { type: 'string' }],
    ...Array.from({ length: levels }, (_, i) => [
      `a${i + 1}`,
      { allOf: [{ $ref: `#/definitions/a${i}` }, { $ref: `#/definitions/a${i}` }] },
    ]),
  ]),
  $ref: `#/definitions/a${levels}`,
});
const widest = () => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: SCHEMA_LIMITS.subschemas - 1 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }]),
  ),
});

function measure<T>(run: () => T, describe: (value: T) => string): [number, number, string] {
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  let outcome: string;
  let held: unknown;
  try {
    held = run();
    outcome = describe(held as T);
  } catch (error) {
    outcome =
      error instanceof DomainError || error instanceof CronProblem
        ? `refused: ${(error as DomainError).code ?? error.message.slice(0, 50)}`
        : `threw ${(error as Error).message.slice(0, 40)}`;
  }
  const ms = Math.round((performance.now() - start) * 10) / 10;
  gc?.();
  const heldMiB = Math.round(((process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024) * 100) / 100;
  void held;
  return [ms, heldMiB, outcome];
}

function examples(): string {
  const cases: [string, object][] = [
    ['nested minItems 1e9 x 3 around minLength 1e9 (the issue)', nested(3, 1e9, 1e9)],
    ['minItems 1e9 of empty objects', { type: 'array', minItems: 1e9, items: { type: 'object' } }],
    ['minItems 1e9 of numbers', { type: 'array', minItems: 1e9, items: { type: 'integer' } }],
    ['minItems 87,000 of empty objects (the budget, kept)', { type: 'array', minItems: 87_000, items: { type: 'object' } }],
    ['minItems 130,000 of numbers (the budget, kept)', { type: 'array', minItems: 130_000, items: { type: 'integer' } }],
    ['8 levels x 8 optional properties (16 M leaves)', wideTree(8, 8)],
    ['minLength 2^31, maxLength 1', { type: 'string', minLength: 2 ** 31, maxLength: 1 }],
    [
      'an ordinary output schema',
      {
        type: 'object',
        required: ['title', 'tags'],
        properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      },
    ],
  ];
  const rows = cases.map(([name, schema]) => [
    name,
    ...measure(
      () => exampleOf(schema),
      (value) => `${JSON.stringify(value).length} bytes`,
    ),
  ]);
  return table(`exampleOf within EXAMPLE_MAX_BYTES (${EXAMPLE_MAX_BYTES})`, ['schema', 'ms', 'heap held MiB', 'outcome'], rows);
}

function validator(): string {
  const cases: [string, object][] = [
    ['the issue: nested minItems and minLength', nested(3, 1000, 1000)],
    [`${SCHEMA_LIMITS.subschemas - 1} properties (the most subschemas accepted)`, widest()],
    ['11 levels of doubled references (accepted)', laughs(11)],
    ['30 levels of doubled references (2^30 checks a value)', laughs(30)],
    ['a reference loop on one value', { allOf: [{ $ref: '#' }] }],
    ['an enum of 1,001 values', { enum: Array.from({ length: 1001 }, (_, i) => `value ${i}`) }],
    ['uniqueItems over objects', { type: 'array', uniqueItems: true, items: { type: 'object' } }],
  ];
  const rows = cases.map(([name, schema]) => [
    name,
    ...measure(
      () => userSchemaProblem(schema),
      (problem) => (problem ? `${problem.code}: ${problem.message.slice(0, 60)}` : 'accepted'),
    ),
  ]);
  return table('The one validator (userSchemaProblem: bounds, ajv compile, estimate)', ['schema', 'ms', 'heap held MiB', 'outcome'], rows);
}

function crons(): string {
  const cases = [
    '@every 1s',
    '0-59 0-23 * * * * 2000-2100',
    '0 0 29 2 * * 2096',
    '0 0 30 2 *',
    `${'1,'.repeat(99)}1 * * * *`,
    '*/1'.repeat(66),
  ];
  const rows = cases.map((cron) => [
    cron.length > 40 ? `${cron.slice(0, 37)}...` : cron,
    ...measure(
      () => smallestGapSeconds(readCron(cron)),
      (gap) => `closest fires ${gap} s apart`,
    ),
  ]);
  return table('Reading a cron and its closest fires', ['cron_expression', 'ms', 'heap held MiB', 'outcome'], rows);
}

console.log([examples(), validator(), crons()].join('\n'));

// One condition language for stop checkers and trigger filter rules (and, later, edge conditions):
// a JSONPath into some data, an operator and a target value. Runs in activities and the API, not in
// workflow code (jsonpath-plus's Node build loads node:vm).
import { JSONPath } from 'jsonpath-plus';
import type { ConditionOperator, StopCondition } from '@app/contracts';

/** Brackets, parentheses and quotes must pair up: jsonpath-plus itself tolerates `$.a[`. */
function balanced(path: string): boolean {
  const closing: Record<string, string> = { '[': ']', '(': ')' };
  const stack: string[] = [];
  let quote: string | null = null;
  for (const char of path) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (closing[char]) stack.push(closing[char]);
    else if ((char === ']' || char === ')') && stack.pop() !== char) return false;
  }
  return !quote && stack.length === 0;
}

/** Errors of a script on data that lacks a field: the path is fine, this data just does not fit it. */
const DATA_DEPENDENT = /Cannot read properties of (undefined|null)/;

/**
 * jsonpath-plus parses filter `[?(...)]` and script `[(...)]` expressions only when it applies them, so
 * each is applied once to an empty object: a syntax error or an unknown function shows there.
 */
function expressionsParse(path: string): boolean {
  for (const part of JSONPath.toPathArray(path)) {
    if (typeof part !== 'string' || !/^\??\([\s\S]*\)$/.test(part)) continue;
    try {
      JSONPath({ path: `$[${part}]`, json: [{}], wrap: true, eval: 'safe' });
    } catch (error) {
      if (!DATA_DEPENDENT.test((error as Error).message)) return false;
    }
  }
  return true;
}

/** A JSONPath we can apply: starts at the root `$`, brackets and quotes paired, expressions that parse. */
export function isValidJsonPath(path: unknown): path is string {
  if (typeof path !== 'string' || !/^\$(?:$|[.[])/.test(path) || !balanced(path) || /\.$/.test(path)) return false;
  try {
    JSONPath({ path, json: {}, wrap: true, eval: 'safe' });
    return expressionsParse(path);
  } catch {
    return false;
  }
}

/**
 * The value at `path`: a single match unwrapped, several as an array, none as undefined. Filter scripts
 * that fail on some item (a missing field) skip that item instead of failing the whole extraction.
 */
export function extractJsonPath(data: unknown, path: string): unknown {
  if (data === undefined) return undefined;
  if (data === null) return path === '$' ? null : undefined;
  const matches = JSONPath({ path, json: data as object, wrap: true, eval: 'safe', ignoreEvalErrors: true }) as unknown[] | undefined;
  if (!matches || matches.length === 0) return undefined;
  return matches.length === 1 ? matches[0] : matches;
}

const DECIMAL = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i;

/** Numbers, and strings written as decimal numbers ("3", " -2.5 ", "1e3"; not "0x10" or ""). */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

const hasOwn = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/** Structural equality; a number equals a string that spells it (3 equals "3"), at any depth. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' || typeof b === 'number') {
    const na = asNumber(a);
    return na !== undefined && na === asNumber(b);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((key) => hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

/**
 * equals / not_equals: deep equality (numbers and numeric strings compare as numbers); contains: a
 * substring of a string (a numeric target as its text) or an element of an array; greater_than /
 * less_than: numeric comparison, false when either side is not a number.
 */
export function evaluateCondition(actual: unknown, operator: ConditionOperator, target: unknown): boolean {
  switch (operator) {
    case 'equals':
      return deepEqual(actual, target);
    case 'not_equals':
      return !deepEqual(actual, target);
    case 'contains':
      if (typeof actual === 'string') {
        return (typeof target === 'string' || typeof target === 'number' || typeof target === 'boolean') && actual.includes(String(target));
      }
      if (Array.isArray(actual)) return actual.some((item) => deepEqual(item, target));
      return false;
    case 'greater_than':
    case 'less_than': {
      const a = asNumber(actual);
      const t = asNumber(target);
      if (a === undefined || t === undefined) return false;
      return operator === 'greater_than' ? a > t : a < t;
    }
    default:
      return false;
  }
}

export interface StopEvaluation {
  matched: boolean;
  condition?: StopCondition;
  actual?: unknown;
}

/** Any matching condition stops the run. `outputOf` gives a step's raw output (undefined if none). */
export function evaluateStopConditions(
  conditions: readonly StopCondition[],
  outputOf: (stepUuid: string) => unknown,
): StopEvaluation {
  for (const condition of conditions) {
    const actual = extractJsonPath(outputOf(condition.step_definition_uuid), condition.extraction_json_path);
    if (evaluateCondition(actual, condition.operator, condition.target_value)) return { matched: true, condition, actual };
  }
  return { matched: false };
}

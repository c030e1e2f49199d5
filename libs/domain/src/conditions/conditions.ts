// One condition language for stop checkers, repeat_until predicates, trigger filter rules and graph edge
// conditions: a JSONPath into some data, an operator and a target value. Paths run on our own evaluator
// (json-path-*.ts) under an ExpressionMeter, so one evaluation's work is bounded whatever the path or data.
import type { ConditionOperator, StopCondition } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { atField, ExpressionMeter } from './json-path-budget';
import { queryJsonPath } from './json-path-query';
import { JsonPathSyntaxError } from './json-path-scanner';
import { jsonPathProblem } from './json-path-syntax';

/** A JSONPath saving accepts: it parses, and fans out no more than MAX_RECURSIVE_DESCENTS and MAX_FAN_OUTS allow. */
export function isValidJsonPath(path: unknown): path is string {
  return jsonPathProblem(path) === null;
}

/**
 * The value at `path`: a single match unwrapped, several as an array, none as undefined. Filters that
 * cannot read some item (a missing field) pass over that item. Throws INVALID_JSON_PATH for a path that
 * does not parse (one saved before paths were checked as they are now), EXPRESSION_BUDGET_EXCEEDED past
 * the meter's budget.
 */
export function extractJsonPath(data: unknown, path: string, meter = new ExpressionMeter()): unknown {
  if (data === undefined) return undefined;
  let matches: unknown[];
  try {
    matches = queryJsonPath(data, path, meter);
  } catch (error) {
    if (error instanceof JsonPathSyntaxError)
      throw new DomainError(ErrorCode.InvalidJsonPath, `${path} is not a JSONPath this version evaluates (${error.message})`, { path });
    throw error;
  }
  if (matches.length === 0) return undefined;
  return matches.length === 1 ? matches[0] : matches;
}

const DECIMAL = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i;

/** Numbers, and strings written as decimal numbers ("3", " -2.5 ", "1e3"; not "0x10" or ""). */
function asNumber(value: unknown, meter: ExpressionMeter): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  meter.visitText(value.length);
  return DECIMAL.test(value) ? Number(value) : undefined;
}

const hasOwn = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/** Structural equality; a number equals a string that spells it (3 equals "3"), at any depth. Each pair compared is a visit. */
function deepEqual(a: unknown, b: unknown, meter: ExpressionMeter): boolean {
  if (typeof a === 'string' && typeof b === 'string') meter.visitText(Math.min(a.length, b.length));
  else meter.visit();
  if (a === b) return true;
  if (typeof a === 'number' || typeof b === 'number') {
    const na = asNumber(a, meter);
    return na !== undefined && na === asNumber(b, meter);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  meter.visit(ka.length + kb.length);
  return (
    ka.length === kb.length &&
    ka.every((key) => hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], meter))
  );
}

/**
 * equals / not_equals: deep equality (numbers and numeric strings compare as numbers); contains: a
 * substring of a string (a numeric target as its text) or an element of an array; greater_than /
 * less_than: numeric comparison, false when either side is not a number.
 */
export function evaluateCondition(actual: unknown, operator: ConditionOperator, target: unknown, meter = new ExpressionMeter()): boolean {
  switch (operator) {
    case 'equals':
      return deepEqual(actual, target, meter);
    case 'not_equals':
      return !deepEqual(actual, target, meter);
    case 'contains':
      if (typeof actual === 'string') {
        meter.visitText(actual.length);
        return (typeof target === 'string' || typeof target === 'number' || typeof target === 'boolean') && actual.includes(String(target));
      }
      if (Array.isArray(actual)) return actual.some((item) => deepEqual(item, target, meter));
      return false;
    case 'greater_than':
    case 'less_than': {
      const a = asNumber(actual, meter);
      const t = asNumber(target, meter);
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

/**
 * Any matching condition stops the run. `outputOf` gives a step's raw output (undefined if none). One meter
 * for all conditions: a budget error names the condition that went past it.
 */
export function evaluateStopConditions(
  conditions: readonly StopCondition[],
  outputOf: (stepUuid: string) => unknown,
  meter = new ExpressionMeter(),
): StopEvaluation {
  for (const [i, condition] of conditions.entries()) {
    try {
      const actual = extractJsonPath(outputOf(condition.step_definition_uuid), condition.extraction_json_path, meter);
      if (evaluateCondition(actual, condition.operator, condition.target_value, meter)) return { matched: true, condition, actual };
    } catch (error) {
      throw atField(error, `stop_conditions[${i}].extraction_json_path`, condition.extraction_json_path);
    }
  }
  return { matched: false };
}

/** repeat_until: whether the JSONPath on the latest output equals the value. */
export function predicateMet(data: unknown, path: string, value: unknown, meter = new ExpressionMeter()): boolean {
  try {
    return evaluateCondition(extractJsonPath(data, path, meter), 'equals', value, meter);
  } catch (error) {
    throw atField(error, 'loop.predicate_path', path);
  }
}

// One condition language for stop checkers (and, later, edge conditions and trigger filters):
// a JSONPath into some data, an operator and a target value.
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

export function isValidJsonPath(path: string): boolean {
  if (typeof path !== 'string' || !path.startsWith('$') || !balanced(path) || /\.$/.test(path)) return false;
  try {
    JSONPath.toPathArray(path);
    JSONPath({ path, json: {}, wrap: true });
    return true;
  } catch {
    return false;
  }
}

/** The value at `path`: a single match unwrapped, several as an array, none as undefined. */
export function extractJsonPath(data: unknown, path: string): unknown {
  if (data === undefined || data === null) return undefined;
  const matches = JSONPath({ path, json: data as object, wrap: true }) as unknown[] | undefined;
  if (!matches || matches.length === 0) return undefined;
  return matches.length === 1 ? matches[0] : matches;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined && (typeof a === 'number' || typeof b === 'number')) return na === nb;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as never)[k], (b as never)[k]));
}

export function evaluateCondition(actual: unknown, operator: ConditionOperator, target: unknown): boolean {
  switch (operator) {
    case 'equals':
      return deepEqual(actual, target);
    case 'not_equals':
      return !deepEqual(actual, target);
    case 'contains':
      if (typeof actual === 'string') return typeof target === 'string' && actual.includes(target);
      if (Array.isArray(actual)) return actual.some((item) => deepEqual(item, target));
      return false;
    case 'greater_than':
    case 'less_than': {
      const a = asNumber(actual);
      const t = asNumber(target);
      if (a === undefined || t === undefined) return false;
      return operator === 'greater_than' ? a > t : a < t;
    }
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

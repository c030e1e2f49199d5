// Filter rules over an event body (webhook triggers), documented in README:
//   {"all": [rule...]} | {"any": [rule...]} | {"path": "$.a", "operator": "...", "value": ...}
// with the stop checkers' operators plus `exists` and `matches` (a regular expression). Empty: match all.
import { DomainError, ErrorCode } from '../errors';
import { evaluateCondition, extractJsonPath, isValidJsonPath } from './conditions';

export const RULE_OPERATORS = ['equals', 'not_equals', 'contains', 'greater_than', 'less_than', 'exists', 'matches'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

export type FilterRule = { all: FilterRule[] } | { any: FilterRule[] } | { path: string; operator: RuleOperator; value?: unknown };

const MAX_DEPTH = 5;

/** Throws a coded 422 naming the offending rule, e.g. `filter_rules.all[1].path`. */
export function validateRules(rules: unknown, field = 'filter_rules', depth = 0): void {
  const fail = (at: string, message: string): never => {
    throw new DomainError(ErrorCode.ValidationFailed, `${at} ${message}`, { field: at });
  };
  if (rules === null || typeof rules !== 'object' || Array.isArray(rules)) fail(field, 'must be an object');
  const rule = rules as Record<string, unknown>;
  const keys = Object.keys(rule);
  if (depth === 0 && keys.length === 0) return;
  if (depth >= MAX_DEPTH) fail(field, `nests deeper than ${MAX_DEPTH} levels`);
  for (const group of ['all', 'any'] as const) {
    if (group in rule) {
      if (keys.length !== 1) fail(field, `must hold only "${group}"`);
      if (!Array.isArray(rule[group]) || !(rule[group] as unknown[]).length) fail(`${field}.${group}`, 'must be a non-empty array');
      (rule[group] as unknown[]).forEach((child, i) => validateRules(child, `${field}.${group}[${i}]`, depth + 1));
      return;
    }
  }
  if (typeof rule.path !== 'string' || !isValidJsonPath(rule.path)) fail(`${field}.path`, 'must be a JSONPath such as $.event.type');
  if (!(RULE_OPERATORS as readonly string[]).includes(rule.operator as string)) fail(`${field}.operator`, `must be one of ${RULE_OPERATORS.join(', ')}`);
  if (rule.operator === 'matches') {
    try {
      new RegExp(String(rule.value));
    } catch {
      fail(`${field}.value`, 'must be a valid regular expression');
    }
  }
  const extra = keys.filter((key) => !['path', 'operator', 'value'].includes(key));
  if (extra.length) fail(`${field}.${extra[0]}`, 'is not a known field');
}

export function evaluateRules(rules: unknown, data: unknown): boolean {
  const rule = (rules ?? {}) as Record<string, unknown>;
  if ('all' in rule) return (rule.all as unknown[]).every((child) => evaluateRules(child, data));
  if ('any' in rule) return (rule.any as unknown[]).some((child) => evaluateRules(child, data));
  if (!('path' in rule)) return true;
  const actual = extractJsonPath(data, rule.path as string);
  switch (rule.operator as RuleOperator) {
    case 'exists':
      return (actual !== undefined) === (rule.value ?? true);
    case 'matches':
      return typeof actual === 'string' && new RegExp(String(rule.value)).test(actual);
    default:
      return evaluateCondition(actual, rule.operator as Exclude<RuleOperator, 'exists' | 'matches'>, rule.value);
  }
}

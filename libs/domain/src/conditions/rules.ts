// Filter rules over an event body (webhook triggers), documented in README:
//   {"all": [rule...]} | {"any": [rule...]} | {"path": "$.a", "operator": "...", "value": ...}
// with the stop checkers' operators plus `exists` (value true, the default, or false) and `matches` (a
// regular expression, run by RE2 in linear time). Empty rules `{}` match every event; groups nest up to five levels.
import { CONDITION_OPERATORS, type ConditionOperator } from '@app/contracts';
import { ErrorCode } from '../errors';
import { isJsonObject } from '../json-object';
import { throwIssues, type Issue } from '../definition/issues';
import { evaluateCondition, extractJsonPath, isValidJsonPath } from './conditions';
import { linearRegexProblem, linearTest } from './linear-regex';

export const RULE_OPERATORS = [...CONDITION_OPERATORS, 'exists', 'matches'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

export type FilterRule = { all: FilterRule[] } | { any: FilterRule[] } | { path: string; operator: RuleOperator; value?: unknown };

export const MAX_RULE_DEPTH = 5;

/** Every problem of a rule tree, each naming its field, e.g. `filter_rules.all[1].path`. */
export function ruleIssues(rules: unknown, field = 'filter_rules', depth = 0): Issue[] {
  const issue = (at: string, message: string): Issue => ({ code: ErrorCode.ValidationFailed, field: at, message: `${at} ${message}` });
  if (!isJsonObject(rules)) return [issue(field, 'must be an object')];
  const keys = Object.keys(rules);
  if (depth === 0 && keys.length === 0) return [];
  if (depth >= MAX_RULE_DEPTH) return [issue(field, `nests deeper than ${MAX_RULE_DEPTH} levels`)];
  for (const group of ['all', 'any'] as const) {
    if (!(group in rules)) continue;
    if (keys.length !== 1) return [issue(field, `must hold only "${group}"`)];
    const children = rules[group];
    if (!Array.isArray(children) || children.length === 0) return [issue(`${field}.${group}`, 'must be a non-empty array')];
    return children.flatMap((child, i) => ruleIssues(child, `${field}.${group}[${i}]`, depth + 1));
  }
  const issues: Issue[] = [];
  if (!isValidJsonPath(rules.path)) issues.push(issue(`${field}.path`, 'must be a JSONPath such as $.event.type'));
  if (!(RULE_OPERATORS as readonly unknown[]).includes(rules.operator)) {
    issues.push(issue(`${field}.operator`, `must be one of ${RULE_OPERATORS.join(', ')}`));
  } else if (rules.operator === 'matches') {
    const problem = linearRegexProblem(rules.value);
    if (problem) issues.push(issue(`${field}.value`, problem));
  } else if (rules.operator === 'exists') {
    if (rules.value !== undefined && typeof rules.value !== 'boolean') issues.push(issue(`${field}.value`, 'must be true or false'));
  } else if (!('value' in rules)) {
    issues.push(issue(`${field}.value`, 'is required'));
  }
  for (const extra of keys.filter((key) => !['path', 'operator', 'value'].includes(key))) issues.push(issue(`${field}.${extra}`, 'is not a known field'));
  return issues;
}

/** Throws one VALIDATION_FAILED naming the first problem and listing all in `details.errors`. */
export function validateRules(rules: unknown, field = 'filter_rules'): void {
  throwIssues(ruleIssues(rules, field));
}

/** Whether `data` satisfies the rules. Meant for validated rules; a malformed rule matches nothing. */
export function evaluateRules(rules: unknown, data: unknown): boolean {
  if (rules === undefined || rules === null) return true;
  if (!isJsonObject(rules)) return false;
  if (Array.isArray(rules.all)) return rules.all.every((child) => evaluateRules(child, data));
  if (Array.isArray(rules.any)) return rules.any.some((child) => evaluateRules(child, data));
  if (Object.keys(rules).length === 0) return true;
  if (typeof rules.path !== 'string') return false;
  let actual: unknown;
  try {
    actual = extractJsonPath(data, rules.path);
  } catch {
    return false;
  }
  switch (rules.operator) {
    case 'exists':
      return (actual !== undefined) === (rules.value ?? true);
    case 'matches':
      return typeof actual === 'string' && linearTest(rules.value as string, actual);
    default:
      return (CONDITION_OPERATORS as readonly unknown[]).includes(rules.operator) && evaluateCondition(actual, rules.operator as ConditionOperator, rules.value);
  }
}

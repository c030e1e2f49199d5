// Filter rules over an event body (webhook triggers), documented in README:
//   {"all": [rule...]} | {"any": [rule...]} | {"path": "$.a", "operator": "...", "value": ...}
// with the stop checkers' operators plus `exists` (value true, the default, or false) and `matches` (a
// regular expression, run by RE2 in linear time). Empty rules `{}` match every event; groups nest up to five
// levels and hold at most MAX_RULES rules. One evaluation of a tree shares one ExpressionMeter, so a delivery's
// work on the API's event loop is bounded however many rules there are and however their paths fan out.
import { CONDITION_OPERATORS, type ConditionOperator } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { isJsonObject } from '../json-object';
import { throwIssues, type Issue } from '../definition/issues';
import { evaluateCondition, extractJsonPath } from './conditions';
import { atField, ExpressionMeter } from './json-path-budget';
import { jsonPathProblem } from './json-path-syntax';
import { linearRegexProblem, linearTest } from './linear-regex';

export const RULE_OPERATORS = [...CONDITION_OPERATORS, 'exists', 'matches'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

export type FilterRule = { all: FilterRule[] } | { any: FilterRule[] } | { path: string; operator: RuleOperator; value?: unknown };

export const MAX_RULE_DEPTH = 5;
export const MAX_RULES = 100;

/** Every problem of a rule tree, each naming its field, e.g. `filter_rules.all[1].path`. */
export function ruleIssues(rules: unknown, field = 'filter_rules'): Issue[] {
  const issues = treeIssues(rules, field, 0);
  const count = countRules(rules);
  if (count > MAX_RULES)
    issues.push({ code: ErrorCode.ValidationFailed, field, message: `${field} holds ${count} rules: at most ${MAX_RULES}` });
  return issues;
}

/** The rules (leaves) of a tree, counting no further than a little past the limit. */
function countRules(rules: unknown, depth = 0): number {
  if (!isJsonObject(rules) || depth > MAX_RULE_DEPTH) return 0;
  const children = Array.isArray(rules.all) ? rules.all : Array.isArray(rules.any) ? rules.any : null;
  if (!children) return 'path' in rules ? 1 : 0;
  let count = 0;
  for (const child of children) {
    count += countRules(child, depth + 1);
    if (count > MAX_RULES) break;
  }
  return count;
}

function treeIssues(rules: unknown, field: string, depth: number): Issue[] {
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
    return children.flatMap((child, i) => treeIssues(child, `${field}.${group}[${i}]`, depth + 1));
  }
  const issues: Issue[] = [];
  const pathProblem = jsonPathProblem(rules.path);
  if (pathProblem) issues.push(issue(`${field}.path`, pathProblem));
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
  for (const extra of keys.filter((key) => !['path', 'operator', 'value'].includes(key)))
    issues.push(issue(`${field}.${extra}`, 'is not a known field'));
  return issues;
}

/** Throws one VALIDATION_FAILED naming the first problem and listing all in `details.errors`. */
export function validateRules(rules: unknown, field = 'filter_rules'): void {
  throwIssues(ruleIssues(rules, field));
}

/**
 * Whether `data` satisfies the rules. Meant for validated rules: a malformed rule, or a path saved before
 * paths were checked as they are now that no longer parses, matches nothing. Throws
 * EXPRESSION_BUDGET_EXCEEDED (naming the rule's path in `details.field`) past the meter's budget.
 */
export function evaluateRules(rules: unknown, data: unknown, meter = new ExpressionMeter(), field = 'filter_rules'): boolean {
  if (rules === undefined || rules === null) return true;
  if (!isJsonObject(rules)) return false;
  if (Array.isArray(rules.all)) return rules.all.every((child, i) => evaluateRules(child, data, meter, `${field}.all[${i}]`));
  if (Array.isArray(rules.any)) return rules.any.some((child, i) => evaluateRules(child, data, meter, `${field}.any[${i}]`));
  if (Object.keys(rules).length === 0) return true;
  if (typeof rules.path !== 'string') return false;
  try {
    return ruleHolds(rules, rules.path, data, meter);
  } catch (error) {
    if (error instanceof DomainError && error.code === ErrorCode.InvalidJsonPath) return false;
    throw atField(error, `${field}.path`, rules.path);
  }
}

function ruleHolds(rule: Record<string, unknown>, path: string, data: unknown, meter: ExpressionMeter): boolean {
  const actual = extractJsonPath(data, path, meter);
  switch (rule.operator) {
    case 'exists':
      return (actual !== undefined) === (rule.value ?? true);
    case 'matches':
      if (typeof actual !== 'string') return false;
      meter.visitText(actual.length);
      return linearTest(rule.value as string, actual);
    default:
      return (
        (CONDITION_OPERATORS as readonly unknown[]).includes(rule.operator) &&
        evaluateCondition(actual, rule.operator as ConditionOperator, rule.value, meter)
      );
  }
}

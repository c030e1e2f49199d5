export * from './conditions';
export * from './rules';
export * from './linear-regex';
export { DEFAULT_EXPRESSION_BUDGET, ExpressionMeter, type ExpressionBudget } from './json-path-budget';
export { jsonPathProblem, MAX_FAN_OUTS, MAX_JSON_PATH_LENGTH, MAX_RECURSIVE_DESCENTS, MAX_UNION_KEYS } from './json-path-syntax';
export { queryJsonPath } from './json-path-query';

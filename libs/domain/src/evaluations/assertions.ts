// An evaluation case's assertions, checked on what its run produced: each passes or fails with the value it
// saw. JSONPath runs under the expression meter, JSON Schema through the one validator: bounded like the
// stop checker and a save.
import { evaluateCondition, extractJsonPath } from '../conditions/conditions';
import type { ExpressionMeter } from '../conditions/json-path-budget';
import { schemaIssues } from '../definition/json-schema';
import { DomainError } from '../errors';
import type { EvalAssertion } from './dataset';

/** What a case's run produced, as the assertions read it. */
export interface CaseRun {
  status: string;
  /** A step's output by its name (undefined: the step has none); the final output without a name. */
  output(step?: string): unknown;
  total_tokens: number;
  duration_ms: number | null;
  /** A judge assertion's verdict, asked of its model before the assertions are checked. */
  verdict?(assertion: EvalAssertion): JudgeVerdict | undefined;
}

/** What a judging model answered (its reason), or why it could not judge. */
export type JudgeVerdict = { pass: boolean; reason: string } | { error: string };

export interface AssertionResult {
  /** What it checked, in words: `schema of draft`, `$.total greater_than 3`, `tokens <= 500`... */
  name: string;
  passed: boolean;
  actual: unknown;
  expected: unknown;
  error?: string;
}

/** Values shown in a result are cut to this many characters of JSON. */
const SHOWN_CHARS = 500;

export function assertionName(assertion: EvalAssertion): string {
  const of = 'step' in assertion && assertion.step ? ` of ${assertion.step}` : '';
  switch (assertion.kind) {
    case 'schema':
      return `schema${of}`;
    case 'condition':
      return `${assertion.path}${of} ${assertion.operator} ${JSON.stringify(assertion.value ?? null)}`;
    case 'judge':
      return `judge${of}: ${assertion.criteria.length > 80 ? `${assertion.criteria.slice(0, 80)}…` : assertion.criteria}`;
    case 'max_tokens':
      return `tokens <= ${assertion.value}`;
    case 'max_duration_ms':
      return `duration_ms <= ${assertion.value}`;
  }
}

export function checkAssertion(assertion: EvalAssertion, run: CaseRun, meter: ExpressionMeter): AssertionResult {
  const name = assertionName(assertion);
  try {
    switch (assertion.kind) {
      case 'schema': {
        const output = run.output(assertion.step);
        const issues = schemaIssues(assertion.schema, output, '');
        return {
          name,
          passed: issues.length === 0,
          actual: shown(output),
          expected: issues.length ? issues.map((i) => i.message) : 'valid',
        };
      }
      case 'condition': {
        const actual = extractJsonPath(run.output(assertion.step), assertion.path, meter);
        return {
          name,
          passed: evaluateCondition(actual, assertion.operator, assertion.value, meter),
          actual: shown(actual),
          expected: assertion.value,
        };
      }
      case 'judge': {
        const verdict = run.verdict?.(assertion) ?? { error: 'not judged' };
        if ('error' in verdict) return { name, passed: false, actual: null, expected: 'pass', error: verdict.error };
        return { name, passed: verdict.pass, actual: verdict.reason, expected: 'pass' };
      }
      case 'max_tokens':
        return { name, passed: run.total_tokens <= assertion.value, actual: run.total_tokens, expected: assertion.value };
      case 'max_duration_ms':
        return {
          name,
          passed: run.duration_ms !== null && run.duration_ms <= assertion.value,
          actual: run.duration_ms,
          expected: assertion.value,
        };
    }
  } catch (error) {
    // A path past its budget, a value the validator cannot read: the assertion fails, saying why.
    if (error instanceof DomainError) return { name, passed: false, actual: null, expected: null, error: error.message };
    throw error;
  }
}

function shown(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text.length <= SHOWN_CHARS ? value : `${text.slice(0, SHOWN_CHARS)}…`;
}

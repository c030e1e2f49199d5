// An evaluation's report: per target (a version, or the workflow as saved now) each case's assertions with
// the values they saw; with two targets, what changed between them, regressions (passed on the baseline,
// failing on the candidate) first. Every case also asserts that its run completed.
import type { ExpressionMeter } from '../conditions/json-path-budget';
import { checkAssertion, type AssertionResult, type CaseRun } from './assertions';
import type { EvalCase, EvalTarget } from './dataset';

export interface CaseResult {
  case: string;
  run_uuid: string;
  passed: boolean;
  assertions: AssertionResult[];
}

export interface TargetResult {
  target: EvalTarget;
  passed: number;
  failed: number;
  cases: CaseResult[];
}

export interface AssertionChange {
  change: 'regression' | 'fix';
  case: string;
  assertion: string;
  baseline: { passed: boolean; actual: unknown };
  candidate: { passed: boolean; actual: unknown };
}

export interface EvaluationReport {
  targets: TargetResult[];
  /** Two targets: the first the baseline, the second the candidate; regressions first. Null with one target. */
  comparison: { regressions: number; fixes: number; changes: AssertionChange[] } | null;
}

export function caseResult(item: EvalCase, runUuid: string, run: CaseRun, meter: ExpressionMeter): CaseResult {
  const completed: AssertionResult = {
    name: 'run completed',
    passed: run.status === 'completed',
    actual: run.status,
    expected: 'completed',
  };
  const assertions = [completed, ...item.assertions.map((assertion) => checkAssertion(assertion, run, meter))];
  return { case: item.name, run_uuid: runUuid, passed: assertions.every((result) => result.passed), assertions };
}

export function targetResult(target: EvalTarget, cases: CaseResult[]): TargetResult {
  const passed = cases.filter((result) => result.passed).length;
  return { target, passed, failed: cases.length - passed, cases };
}

export function evaluationReport(targets: TargetResult[]): EvaluationReport {
  if (targets.length < 2) return { targets, comparison: null };
  const [baseline, candidate] = targets;
  const changes: AssertionChange[] = [];
  for (const after of candidate.cases) {
    const before = baseline.cases.find((result) => result.case === after.case);
    after.assertions.forEach((now, i) => {
      const then = before?.assertions[i];
      if (!then || then.passed === now.passed) return;
      changes.push({
        change: now.passed ? 'fix' : 'regression',
        case: after.case,
        assertion: now.name,
        baseline: { passed: then.passed, actual: then.actual },
        candidate: { passed: now.passed, actual: now.actual },
      });
    });
  }
  changes.sort((a, b) => (a.change === b.change ? 0 : a.change === 'regression' ? -1 : 1));
  const regressions = changes.filter((change) => change.change === 'regression').length;
  return { targets, comparison: { regressions, fixes: changes.length - regressions, changes } };
}

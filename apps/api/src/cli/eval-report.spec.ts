import type { EvaluationReport } from '@app/domain';
import { verdictOf } from './eval-report';

const assertion = (passed: boolean, actual: unknown) => ({ name: '$.answer equals 6', passed, actual, expected: 6 });
const target = (name: 'current' | number, passed: boolean) => ({
  target: name,
  passed: passed ? 1 : 0,
  failed: passed ? 0 : 1,
  cases: [{ case: 'double 3', run_uuid: 'run', passed, assertions: [assertion(passed, passed ? 6 : 7)] }],
});

describe('verdictOf', () => {
  it('fails on a regression against the baseline, naming the case, the assertion and both values', () => {
    const report: EvaluationReport = {
      targets: [target(1, true), target('current', false)],
      comparison: {
        regressions: 1,
        fixes: 0,
        changes: [
          {
            change: 'regression',
            case: 'double 3',
            assertion: '$.answer equals 6',
            baseline: { passed: true, actual: 6 },
            candidate: { passed: false, actual: 7 },
          },
        ],
      },
    };

    const verdict = verdictOf(report);

    expect(verdict.ok).toBe(false);
    expect(verdict.lines).toContain('  REGRESSION double 3: $.answer equals 6 (was 6, now 7)');
    expect(verdict.lines).toContain('  FAIL double 3 (run run): $.answer equals 6 (got 7)');
  });

  it('passes with a baseline when a case fails on both, and fails without one on any failed case', () => {
    const both: EvaluationReport = {
      targets: [target(1, false), target('current', false)],
      comparison: { regressions: 0, fixes: 0, changes: [] },
    };
    expect(verdictOf(both).ok).toBe(true);
    expect(verdictOf({ targets: [target('current', false)], comparison: null }).ok).toBe(false);
    expect(verdictOf({ targets: [target('current', true)], comparison: null }).ok).toBe(true);
  });
});

// What `npm run eval` prints of an evaluation's report, and its verdict: with a baseline, a regression (an
// assertion that passed on the baseline and fails on the target) fails it; without one, any failed case does.
import type { EvaluationReport } from '@app/domain';

export interface Verdict {
  ok: boolean;
  lines: string[];
}

const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function verdictOf(report: EvaluationReport): Verdict {
  const lines: string[] = [];
  for (const target of report.targets) {
    lines.push(`target ${target.target}: ${target.passed} passed, ${target.failed} failed`);
    for (const item of target.cases.filter((result) => !result.passed)) {
      const failed = item.assertions.filter((assertion) => !assertion.passed);
      lines.push(`  FAIL ${item.case} (run ${item.run_uuid}): ${failed.map((a) => `${a.name} (got ${shown(a.actual)})`).join('; ')}`);
    }
  }
  if (!report.comparison) return { ok: report.targets.every((target) => target.failed === 0), lines };
  const { regressions, fixes, changes } = report.comparison;
  lines.push(`${regressions} regression(s), ${fixes} fix(es) against ${report.targets[0].target}`);
  for (const change of changes)
    lines.push(
      `  ${change.change.toUpperCase()} ${change.case}: ${change.assertion} (was ${shown(change.baseline.actual)}, now ${shown(change.candidate.actual)})`,
    );
  return { ok: regressions === 0, lines };
}

// The assistant's dry run on a dataset (#30): editing a saved workflow that has one, the candidate is dry-run
// with the first case's trigger data instead of made-up data, and that case's assertions are checked on what
// the dry run produced. Judge assertions are skipped: a dry run's model answers are invented, and judging
// them would spend a real model call on nothing.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { assertionName, checkAssertion, ExpressionMeter, type AssertionResult, type EvalCase } from '@app/domain';
import { EvaluationRepository, RunRepository } from '@app/persistence';
import { caseRunOf } from './evaluation.service';

/** The case a dry run uses: the first dataset's (by name) first case that has trigger data. */
export interface DryRunCase {
  dataset: string;
  case: EvalCase & { trigger_output: unknown };
}

/** What the dry-run event says of the case: its assertions' results, and how many passed and failed. */
export interface DryRunCaseCheck {
  dataset: string;
  case: string;
  passed: number;
  failed: number;
  skipped: number;
  assertions: (AssertionResult | { name: string; skipped: string })[];
}

/** Datasets a workflow has that are read for a dry run's case (the rest are not looked at). */
export const DRY_RUN_DATASETS_READ = 5;

@Injectable()
export class DryRunDataset {
  constructor(
    private readonly evaluations: EvaluationRepository,
    private readonly runs: RunRepository,
    private readonly config: AppConfig,
  ) {}

  /** Null when the workflow is not saved yet, or none of its datasets has a case with trigger data (recorded-run cases are replays). */
  async caseFor(userId: string, workflowUuid: string): Promise<DryRunCase | null> {
    const datasets = await this.evaluations.listDatasets(userId, workflowUuid);
    for (const { name } of datasets.slice(0, DRY_RUN_DATASETS_READ)) {
      const dataset = await this.evaluations.findDataset(userId, workflowUuid, name);
      const item = (dataset?.cases as EvalCase[] | undefined)?.find((entry) => entry.trigger_output !== undefined);
      if (item) return { dataset: name, case: item as DryRunCase['case'] };
    }
    return null;
  }

  /**
   * The case's assertions checked on the dry run `runUuid` as it ended (each JSONPath under the expression
   * budget); null when its workflow has no such case. The case is looked up again, as prepareDryRun chose it.
   */
  async check(userId: string, runUuid: string): Promise<DryRunCaseCheck | null> {
    const run = await this.runs.find(userId, runUuid);
    const chosen = run ? await this.caseFor(userId, run.workflow_uuid) : null;
    if (!run || !chosen) return null;
    const seen = caseRunOf(run);
    const assertions = chosen.case.assertions.map((assertion) =>
      assertion.kind === 'judge'
        ? { name: assertionName(assertion), skipped: 'judge assertions are not asked of a dry run (its model answers are made up)' }
        : checkAssertion(assertion, seen, new ExpressionMeter(this.config.limits.expression)),
    );
    const count = (test: (entry: (typeof assertions)[number]) => boolean) => assertions.filter(test).length;
    return {
      dataset: chosen.dataset,
      case: chosen.case.name,
      passed: count((entry) => 'passed' in entry && entry.passed),
      failed: count((entry) => 'passed' in entry && !entry.passed),
      skipped: count((entry) => 'skipped' in entry),
      assertions,
    };
  }
}

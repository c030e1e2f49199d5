// The worker's side of an evaluation (#30): each case's run recorded (fresh with its trigger data, or a replay
// of its recorded run) against a target, and the report written from the runs once they ended.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { runWorkflowId, type EvaluationCaseRef, type EvaluationCaseRefusal, type PreparedRun } from '@app/contracts';
import {
  caseResult,
  DomainError,
  ErrorCode,
  evaluationReport,
  ExpressionMeter,
  nameBasedUuid,
  notFound,
  targetResult,
  type CaseRun,
  type EvalAssertion,
  type EvalCase,
  type JudgeVerdict,
  type EvalTarget,
} from '@app/domain';
import { EvaluationRepository, RunRepository, WorkflowVersionRepository, type RunWithSteps } from '@app/persistence';
import { RunPreparer, RunReplayer, type ReplayTarget } from '@app/runs';
import { EvaluationJudge } from './evaluation-judge';

/** The run of a case against a target: named by the three, so a retried activity finds the run it recorded. */
export const caseRunUuid = (evaluationUuid: string, target: number, item: number): string =>
  nameBasedUuid('evaluation', evaluationUuid, String(target), String(item));

@Injectable()
export class EvaluationService {
  private readonly replayer: RunReplayer;

  constructor(
    private readonly evaluations: EvaluationRepository,
    private readonly runs: RunRepository,
    private readonly versions: WorkflowVersionRepository,
    private readonly preparer: RunPreparer,
    private readonly config: AppConfig,
    private readonly judge: EvaluationJudge,
  ) {
    this.replayer = new RunReplayer(runs, preparer, versions);
  }

  async prepareRun(ref: EvaluationCaseRef): Promise<{ run: PreparedRun } | { error: string }> {
    const evaluation = await this.evaluations.findEvaluation(ref.user_id, ref.evaluation_uuid);
    // Gone (its workflow deleted with it): the evaluation fails for good rather than retrying.
    if (!evaluation) throw notFound('Evaluation', ref.evaluation_uuid);
    const item = evaluation.cases[ref.case] as EvalCase;
    const target = evaluation.targets[ref.target];
    const runUuid = caseRunUuid(evaluation.uuid, ref.target, ref.case);
    const common = { userId: ref.user_id, runUuid, temporalWorkflowId: runWorkflowId(runUuid) };
    try {
      const { run } =
        item.run_uuid !== undefined
          ? await this.replayer.prepare({ ...common, sourceRunUuid: item.run_uuid, target: replayTargetOf(target), offline: false })
          : await this.fresh(common, evaluation.workflow_uuid, item.trigger_output, target);
      return { run: { ...run, heartbeat_timeout_seconds: this.config.temporal.heartbeatTimeoutSeconds } };
    } catch (error) {
      // The case cannot run (its recorded run gone, a version missing, a model no longer allowed): its result says so.
      if (error instanceof DomainError) return { error: `${error.code}: ${error.message}` };
      throw error;
    }
  }

  private async fresh(
    common: { userId: string; runUuid: string; temporalWorkflowId: string },
    workflowUuid: string,
    triggerOutput: unknown,
    target: EvalTarget,
  ) {
    const request = { ...common, workflowUuid, triggerOutput };
    if (target === 'current') return this.preparer.prepare({ ...request, origin: 'manual' });
    const version = await this.versions.find(common.userId, workflowUuid, target);
    if (!version) throw new DomainError(ErrorCode.NotFound, `the workflow has no version ${target}`);
    return this.preparer.prepareVersion(request, { ...version.definition, uuid: workflowUuid }, version.version);
  }

  async end(
    evaluationUuid: string,
    userId: string,
    status: 'completed' | 'failed' | 'cancelled',
    refused: EvaluationCaseRefusal[],
    errorMessage?: string,
  ) {
    const evaluation = await this.evaluations.findEvaluation(userId, evaluationUuid);
    if (!evaluation || evaluation.status !== 'running') return;
    if (status !== 'completed') {
      await this.evaluations.endEvaluation(evaluationUuid, status, null, errorMessage ?? null);
      return;
    }
    const meter = () => new ExpressionMeter(this.config.limits.expression);
    const targets = [];
    for (const [t, target] of evaluation.targets.entries()) {
      const cases = [];
      for (const [c, raw] of evaluation.cases.entries()) {
        const item = raw as EvalCase;
        const runUuid = caseRunUuid(evaluation.uuid, t, c);
        const refusal = refused.find((entry) => entry.target === t && entry.case === c);
        const run = refusal ? null : await this.runs.find(userId, runUuid);
        const seen = run ? caseRunOf(run) : notRun(refusal?.error ?? 'the run was not recorded');
        cases.push(caseResult(item, runUuid, await this.judged(userId, item, seen), meter()));
      }
      targets.push(targetResult(target, cases));
    }
    await this.evaluations.endEvaluation(evaluationUuid, 'completed', evaluationReport(targets), null);
  }

  /** The case's judge assertions asked of their models (one at a time) when its run completed, for the check to read. */
  private async judged(userId: string, item: EvalCase, run: CaseRun): Promise<CaseRun> {
    if (run.status !== 'completed') return run;
    const verdicts = new Map<EvalAssertion, JudgeVerdict>();
    for (const assertion of item.assertions)
      if (assertion.kind === 'judge') verdicts.set(assertion, await this.judge.judge(userId, assertion, run.output(assertion.step)));
    return { ...run, verdict: (assertion) => verdicts.get(assertion) };
  }
}

function replayTargetOf(target: EvalTarget): ReplayTarget {
  return target === 'current' ? { kind: 'current' } : { kind: 'version', version: target };
}

/** What the assertions read of a case's run: a step's output by its name, the final output (the last step's that has one). */
export function caseRunOf(run: RunWithSteps): CaseRun {
  const steps = [...run.steps].sort((a, b) => a.position - b.position);
  const last = [...steps].reverse().find((step) => step.output);
  return {
    status: run.status,
    output: (name) => (name === undefined ? last?.output?.raw_data : steps.find((step) => step.step_name === name)?.output?.raw_data),
    total_tokens: run.total_tokens,
    duration_ms: run.finished_at ? run.finished_at.getTime() - run.started_at.getTime() : null,
  };
}

function notRun(reason: string): CaseRun {
  return { status: `not run: ${reason}`, output: () => undefined, total_tokens: 0, duration_ms: null };
}

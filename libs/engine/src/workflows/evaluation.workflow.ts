// An evaluation (#30): every case of its dataset run against each target as a child run workflow, at most
// `concurrency` at a time, then the report written by one activity. Cancelling it cancels the case runs in
// flight and records the evaluation cancelled.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import {
  RUN_WORKFLOW_TYPE,
  runWorkflowId,
  type EvaluationActivities,
  type EvaluationCaseRefusal,
  type EvaluationWorkflowInput,
  type PreparedRun,
  type RunWorkflowResult,
} from '@app/contracts';
import { BOOKKEEPING_OPTIONS } from './activity-options';

const work = proxyActivities<EvaluationActivities>({ ...BOOKKEEPING_OPTIONS, startToCloseTimeout: '2 minutes', summary: 'evaluation' });
// The report's activity may ask a judge model per judge assertion of every case.
const report = proxyActivities<EvaluationActivities>({ ...BOOKKEEPING_OPTIONS, startToCloseTimeout: '30 minutes', summary: 'report' });

export async function evaluationWorkflow(input: EvaluationWorkflowInput): Promise<void> {
  const jobs = Array.from({ length: input.target_count * input.case_count }, (_, i) => ({
    target: Math.floor(i / input.case_count),
    case: i % input.case_count,
  }));
  const refused: EvaluationCaseRefusal[] = [];
  const end = (status: 'completed' | 'failed' | 'cancelled', error_message?: string) =>
    report.endEvaluation({
      evaluation_uuid: input.evaluation_uuid,
      user_id: input.user_id,
      status,
      refused,
      ...(error_message ? { error_message } : {}),
    });
  let next = 0;
  const lane = async () => {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      const prepared = await work.prepareEvaluationRun({ evaluation_uuid: input.evaluation_uuid, user_id: input.user_id, ...job });
      if ('error' in prepared) refused.push({ ...job, error: prepared.error });
      else await runCase(prepared.run);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, jobs.length)) }, lane));
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => end('cancelled'));
      throw error;
    }
    await end('failed', error instanceof Error ? error.message : String(error));
    throw ApplicationFailure.nonRetryable(
      `evaluation failed: ${error instanceof Error ? error.message : String(error)}`,
      'EvaluationFailed',
    );
  }
  await end('completed');
}

/** A case's run to its end; a failed run is a result the report reads from its row, not the evaluation's failure. */
async function runCase(run: PreparedRun): Promise<void> {
  try {
    await executeChild<(input: PreparedRun) => Promise<RunWorkflowResult>>(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(run.run_uuid),
      args: [run],
    });
  } catch (error) {
    if (!(error instanceof ChildWorkflowFailure) || isCancellation(error)) throw error;
  }
}

// A sub_workflow step: the child is a run of its own (its rows, its audit, its workflow `run-<uuid>`),
// started as a Temporal child workflow so that cancelling the parent cancels it and the parent waits for
// it, a child waiting for a person included. Its uuid is drawn here, so a retried start records it once.
import { ChildWorkflowFailure, executeChild, ParentClosePolicy, uuid4 } from '@temporalio/workflow';
import {
  RUN_WORKFLOW_TYPE,
  runWorkflowId,
  type PreparedRun,
  type RunWorkflowResult,
  type StepContext,
  type StepResultRef,
  type SubWorkflowStep,
} from '@app/contracts';
import type { RunScope } from './run-scope';

export async function runSubWorkflow(scope: RunScope, step: SubWorkflowStep, context: StepContext): Promise<StepResultRef> {
  const activities = scope.activitiesFor(step, `${step.name}: sub-workflow`);
  const child = await activities.startSubWorkflow({ ...context, step, child_run_uuid: uuid4(), depth: (scope.input.depth ?? 0) + 1 });
  try {
    await executeChild<(input: PreparedRun) => Promise<RunWorkflowResult>>(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(child.run_uuid),
      args: [child],
      // The parent's end (a terminate from the Web UI, say) asks the child to cancel: it closes its own rows.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      cancellationType: 'WAIT_CANCELLATION_COMPLETED',
      staticSummary: `${step.name}: run ${child.run_uuid}`,
    });
  } catch (error) {
    // A child that failed is this step's failure, told by the child's own row (completeSubWorkflow reads it).
    if (!(error instanceof ChildWorkflowFailure) || error.cause?.name === 'CancelledFailure') throw error;
  }
  return await activities.completeSubWorkflow({ ...context, step, child_run_uuid: child.run_uuid });
}

// An agent's call of a workflow tool: a child run like a sub_workflow step's (its own rows and audit, its
// workflow `run-<uuid>`, cancelled with the parent), whose end is the call's answer. The child's uuid comes
// from the call, so a start retried after a crash finds the run it recorded; a call answered before stays so.
import { ChildWorkflowFailure, executeChild, ParentClosePolicy } from '@temporalio/workflow';
import {
  RUN_WORKFLOW_TYPE,
  runWorkflowId,
  type CustomAgentStep,
  type PreparedRun,
  type RunWorkflowResult,
  type StepContext,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolExecutorStep,
} from '@app/contracts';
import type { RunScope } from './run-scope';

/** A graph's tool executor running its caller's call: the answer goes into `transcript_uuid`, the child is the executor's. */
export interface ExecutorOfCall {
  step: ToolExecutorStep;
  transcript_uuid: string;
}

/** `step`: the agent whose call it is (its retry policy runs the activities); `executor`: when a tool executor runs it. */
export async function callWorkflowTool(
  scope: RunScope,
  step: CustomAgentStep,
  context: StepContext,
  call: ToolCallRequest,
  position: number,
  workflowUuid: string,
  executor?: ExecutorOfCall,
): Promise<ToolCallResult> {
  const activities = scope.activitiesFor(step, `${executor?.step.name ?? step.name}: tool ${call.name}`);
  const depth = (scope.input.depth ?? 0) + 1;
  const via = executor ? { conversation_uuid: executor.transcript_uuid } : {};
  const start = await activities.startWorkflowTool({
    ...context,
    step,
    call,
    position,
    workflow_uuid: workflowUuid,
    depth,
    ...via,
    ...(executor ? { parent_step_uuid: executor.step.uuid } : {}),
  });
  if ('answered' in start) return start.answered;
  const { child, audit_attempt } = start;
  try {
    await executeChild<(input: PreparedRun) => Promise<RunWorkflowResult>>(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(child.run_uuid),
      args: [child],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      cancellationType: 'WAIT_CANCELLATION_COMPLETED',
      staticSummary: `${executor?.step.name ?? step.name}: tool ${call.name}, run ${child.run_uuid}`,
    });
  } catch (error) {
    // A child that failed is answered to the model as the tool's failure (completeWorkflowTool reads its row).
    if (!(error instanceof ChildWorkflowFailure) || error.cause?.name === 'CancelledFailure') throw error;
  }
  return await activities.completeWorkflowTool({ ...context, step, call, position, child_run_uuid: child.run_uuid, audit_attempt, ...via });
}

// Starting, cancelling and observing run workflows.
import { Injectable } from '@nestjs/common';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { DomainError, ErrorCode } from '@app/domain';
import {
  HUMAN_INPUT_UPDATE,
  RUN_WORKFLOW_TYPE,
  isInFlight,
  runWorkflowId,
  type FinalStatus,
  type HumanInputAccepted,
  type HumanInputArgs, type PreparedRun, type RunWorkflowResult } from '@app/contracts';
import { runSearchAttributes } from './search-attributes';
import { TemporalClient } from './temporal-client';

/** A run's execution as Temporal sees it: how a closed one ended, in the run's own terms. */
export type ExecutionState = { state: 'running' } | { state: 'missing' } | { state: 'closed'; status: FinalStatus; error_message: string | null };

export abstract class RunLauncher {
  abstract start(run: PreparedRun): Promise<void>;
  /** By the execution's workflow id (`run-<uuid>` for runs started here, the schedule's id for scheduled ones). */
  abstract cancel(workflowId: string): Promise<void>;
  abstract observe(workflowId: string): Promise<ExecutionState>;
  /** Delivers a person's answer to a waiting human_input step (a Temporal Update); STEP_NOT_AWAITING_INPUT when the workflow refuses it. */
  abstract answer(workflowId: string, args: HumanInputArgs): Promise<HumanInputAccepted>;
}

function innermostMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current?.message || String(error);
}

@Injectable()
export class TemporalRunLauncher extends RunLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(run: PreparedRun): Promise<void> {
    const client = await this.temporal.get();
    const { name, uuid } = run.definition;
    try {
      await client.workflow.start(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(run.run_uuid),
        // One execution per run whoever starts it again (an Idempotency-Key replay, a retried request):
        // a running one is joined, a closed one is never started twice.
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        taskQueue: this.temporal.config.temporal.taskQueue,
        args: [{ ...run, heartbeat_timeout_seconds: this.temporal.config.temporal.heartbeatTimeoutSeconds }],
        staticSummary: `${name} — run ${run.run_uuid}`,
        memo: { run_uuid: run.run_uuid, workflow_uuid: uuid, workflow_name: name, user_id: run.user_id },
        typedSearchAttributes: runSearchAttributes({ run_uuid: run.run_uuid, workflow_uuid: uuid, workflow_name: name, user_id: run.user_id }),
      });
    } catch (error) {
      // A repeated start of a run whose execution has closed: nothing to do.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async cancel(workflowId: string): Promise<void> {
    await (await this.temporal.get()).workflow.getHandle(workflowId).cancel();
  }

  async answer(workflowId: string, args: HumanInputArgs): Promise<HumanInputAccepted> {
    const handle = (await this.temporal.get()).workflow.getHandle(workflowId);
    try {
      return await handle.executeUpdate<HumanInputAccepted, [HumanInputArgs]>(HUMAN_INPUT_UPDATE, { args: [args] });
    } catch (error) {
      // Refused by the update's validator: the step is not (or no longer) waiting. Nothing entered the history.
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      throw new DomainError(ErrorCode.StepNotAwaitingInput, innermostMessage(error), { field: 'step_uuid', step_uuid: args.step_uuid });
    }
  }

  async observe(workflowId: string): Promise<ExecutionState> {
    const handle = (await this.temporal.get()).workflow.getHandle(workflowId);
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { state: 'missing' };
      throw error;
    }
    if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW' || status === 'PAUSED') return { state: 'running' };
    if (status === 'CANCELLED') return { state: 'closed', status: 'cancelled', error_message: 'Cancelled in Temporal' };
    if (status === 'TIMED_OUT') return { state: 'closed', status: 'failed', error_message: 'The Temporal execution timed out' };
    try {
      const result = (await handle.result()) as RunWorkflowResult;
      return { state: 'closed', status: isInFlight(result.status) ? 'failed' : (result.status as FinalStatus), error_message: result.error_message };
    } catch (error) {
      // Failed, or terminated (from the Web UI or CLI, or by the server for a payload over its limit).
      const prefix = status === 'TERMINATED' ? 'Terminated in Temporal' : 'The Temporal execution failed';
      return { state: 'closed', status: 'failed', error_message: `${prefix}: ${innermostMessage(error)}` };
    }
  }
}

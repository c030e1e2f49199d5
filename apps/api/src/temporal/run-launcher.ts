// The API's door from a run's life to Temporal: starting, cancelling and observing run executions, and the
// Updates a person sends one (the port, and what an execution's end means for the run, are libs/runs').
import { Injectable } from '@nestjs/common';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import { DomainError, ErrorCode } from '@app/domain';
import {
  APPROVE_BUDGET_UPDATE,
  CONVERSATION_BUSY,
  HUMAN_INPUT_UPDATE,
  RECHECK_SPEND_SIGNAL,
  RUN_WORKFLOW_TYPE,
  SEND_MESSAGE_UPDATE,
  failureMessage,
  runWorkflowId,
  type ApproveBudgetArgs,
  type BudgetApproved,
  type HumanInputAccepted,
  type HumanInputArgs,
  type PreparedRun,
  type RunWorkflowResult,
  type SendMessageArgs,
  type TurnReply,
} from '@app/contracts';
import { RunLauncher, type ExecutionState, type TurnOutcome } from '@app/runs';
import { runSearchAttributes } from './search-attributes';
import { TemporalClient } from './temporal-client';
import { isTemporalLate, isTemporalUnreachable, temporalUnavailable } from './temporal-unavailable';

@Injectable()
export class TemporalRunLauncher extends RunLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  /**
   * TEMPORAL_UNAVAILABLE when the server cannot be reached: the execution was not started. A start whose
   * answer came too late may have started it: that is left to the reconciler, which starts the run (or
   * joins its execution) if it still has none.
   */
  async start(run: PreparedRun): Promise<void> {
    try {
      await this.startExecution(run);
    } catch (error) {
      if (isTemporalLate(error)) return;
      throw isTemporalUnreachable(error) ? temporalUnavailable() : error;
    }
  }

  private async startExecution(run: PreparedRun): Promise<void> {
    const client = await this.temporal.get();
    const { name, uuid } = run.definition;
    const { temporal } = this.temporal.config;
    try {
      await client.workflow.start(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(run.run_uuid),
        // One execution per run whoever starts it again (an Idempotency-Key replay, a retried request):
        // a running one is joined, a closed one is never started twice.
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        taskQueue: temporal.taskQueue,
        args: [
          {
            ...run,
            heartbeat_timeout_seconds: temporal.heartbeatTimeoutSeconds,
            ...(run.definition.graph?.is_conversational ? { turns_per_execution: temporal.conversationTurnsPerExecution } : {}),
            ...(run.definition.steps.some((step) => 'loop' in step && step.loop)
              ? { iterations_per_execution: temporal.loopIterationsPerExecution }
              : {}),
          },
        ],
        staticSummary: `${run.dry_run ? '[dry run] ' : ''}${name} — run ${run.run_uuid}`,
        memo: {
          run_uuid: run.run_uuid,
          workflow_uuid: uuid,
          workflow_name: name,
          user_id: run.user_id,
          ...(run.dry_run ? { dry_run: true } : {}),
        },
        typedSearchAttributes: runSearchAttributes({
          run_uuid: run.run_uuid,
          workflow_uuid: uuid,
          workflow_name: name,
          user_id: run.user_id,
        }),
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
      throw new DomainError(ErrorCode.StepNotAwaitingInput, failureMessage(error), { field: 'step_uuid', step_uuid: args.step_uuid });
    }
  }

  async approveBudget(workflowId: string, args: ApproveBudgetArgs): Promise<BudgetApproved> {
    const handle = (await this.temporal.get()).workflow.getHandle(workflowId);
    try {
      return await handle.executeUpdate<BudgetApproved, [ApproveBudgetArgs]>(APPROVE_BUDGET_UPDATE, { args: [args] });
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)) throw error;
      throw new DomainError(ErrorCode.RunNotActive, failureMessage(error), { field: 'max_tokens' });
    }
  }

  async recheckSpend(workflowId: string): Promise<void> {
    try {
      await (await this.temporal.get()).workflow.getHandle(workflowId).signal(RECHECK_SPEND_SIGNAL);
    } catch (error) {
      // Ended since its row was read: nothing waits.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }

  async sendMessage(workflowId: string, args: SendMessageArgs, waitMs: number): Promise<TurnOutcome> {
    const handle = (await this.temporal.get()).workflow.getHandle(workflowId);
    let timer: NodeJS.Timeout | undefined;
    try {
      // Past the validator the message is in the history and its turn runs; a refusal arrives as the outcome.
      const update = await handle.startUpdate<TurnReply, [SendMessageArgs]>(SEND_MESSAGE_UPDATE, {
        args: [args],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
      const reply = await Promise.race([update.result(), late]);
      return reply ? { answered: true, reply } : { answered: false, turn_id: update.updateId };
    } catch (error) {
      // Refused (busy, closed), or the run ended before the turn answered (cancelled, its execution gone).
      if (!(error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)) throw error;
      const busy = (error.cause as { type?: string } | undefined)?.type === CONVERSATION_BUSY;
      throw new DomainError(busy ? ErrorCode.ConversationBusy : ErrorCode.RunNotActive, failureMessage(error), { field: 'content' });
    } finally {
      clearTimeout(timer);
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
    if (status === 'CANCELLED') return { state: 'closed', closed: 'cancelled' };
    if (status === 'TIMED_OUT') return { state: 'closed', closed: 'timed_out' };
    try {
      return { state: 'closed', closed: 'completed', result: (await handle.result()) as RunWorkflowResult };
    } catch (error) {
      // Failed, or terminated (from the Web UI or CLI, or by the server for a payload over its limit).
      return { state: 'closed', closed: status === 'TERMINATED' ? 'terminated' : 'failed', failure: failureMessage(error) };
    }
  }
}

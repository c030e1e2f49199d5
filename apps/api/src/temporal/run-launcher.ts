// Starting, cancelling and observing run workflows.
import { Injectable } from '@nestjs/common';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { DomainError, ErrorCode } from '@app/domain';
import {
  APPROVE_BUDGET_UPDATE,
  CONVERSATION_BUSY,
  HUMAN_INPUT_UPDATE,
  RUN_WORKFLOW_TYPE,
  SEND_MESSAGE_UPDATE,
  failureMessage,
  isInFlight,
  runWorkflowId,
  type ApproveBudgetArgs,
  type BudgetApproved,
  type FinalStatus,
  type HumanInputAccepted,
  type HumanInputArgs,
  type PreparedRun,
  type RunWorkflowResult,
  type SendMessageArgs,
  type TurnReply,
} from '@app/contracts';
import { runSearchAttributes } from './search-attributes';
import { TemporalClient } from './temporal-client';
import { isTemporalLate, isTemporalUnreachable, temporalUnavailable } from './temporal-unavailable';

/** A run's execution as Temporal sees it: how a closed one ended, in the run's own terms. */
/** A message's turn: answered within the wait, or still running (its update id to look it up by). */
export type TurnOutcome = { answered: true; reply: TurnReply } | { answered: false; turn_id: string };

export type ExecutionState = { state: 'running' } | { state: 'missing' } | { state: 'closed'; status: FinalStatus; error_message: string | null };

export abstract class RunLauncher {
  abstract start(run: PreparedRun): Promise<void>;
  /** By the execution's workflow id (`run-<uuid>` for runs started here, the schedule's id for scheduled ones). */
  abstract cancel(workflowId: string): Promise<void>;
  abstract observe(workflowId: string): Promise<ExecutionState>;
  /** Delivers a person's answer to a waiting human_input step (a Temporal Update); STEP_NOT_AWAITING_INPUT when the workflow refuses it. */
  abstract answer(workflowId: string, args: HumanInputArgs): Promise<HumanInputAccepted>;
  /** Lets a run waiting on its token budget go on with a new limit (a Temporal Update); RUN_NOT_ACTIVE when the workflow refuses it. */
  abstract approveBudget(workflowId: string, args: ApproveBudgetArgs): Promise<BudgetApproved>;
  /** Delivers a user message to a conversational run (a Temporal Update) and waits up to `waitMs` for the turn's reply. */
  abstract sendMessage(workflowId: string, args: SendMessageArgs, waitMs: number): Promise<TurnOutcome>;
}

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
            ...(run.definition.steps.some((step) => 'loop' in step && step.loop) ? { iterations_per_execution: temporal.loopIterationsPerExecution } : {}),
          },
        ],
        staticSummary: `${run.dry_run ? '[dry run] ' : ''}${name} — run ${run.run_uuid}`,
        memo: { run_uuid: run.run_uuid, workflow_uuid: uuid, workflow_name: name, user_id: run.user_id, ...(run.dry_run ? { dry_run: true } : {}) },
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

  async sendMessage(workflowId: string, args: SendMessageArgs, waitMs: number): Promise<TurnOutcome> {
    const handle = (await this.temporal.get()).workflow.getHandle(workflowId);
    let timer: NodeJS.Timeout | undefined;
    try {
      // Past the validator the message is in the history and its turn runs; a refusal arrives as the outcome.
      const update = await handle.startUpdate<TurnReply, [SendMessageArgs]>(SEND_MESSAGE_UPDATE, { args: [args], waitForStage: WorkflowUpdateStage.ACCEPTED });
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
    if (status === 'CANCELLED') return { state: 'closed', status: 'cancelled', error_message: 'Cancelled in Temporal' };
    if (status === 'TIMED_OUT') return { state: 'closed', status: 'failed', error_message: 'The Temporal execution timed out' };
    try {
      const result = (await handle.result()) as RunWorkflowResult;
      return { state: 'closed', status: isInFlight(result.status) ? 'failed' : (result.status as FinalStatus), error_message: result.error_message };
    } catch (error) {
      // Failed, or terminated (from the Web UI or CLI, or by the server for a payload over its limit).
      const prefix = status === 'TERMINATED' ? 'Terminated in Temporal' : 'The Temporal execution failed';
      return { state: 'closed', status: 'failed', error_message: `${prefix}: ${failureMessage(error)}` };
    }
  }
}

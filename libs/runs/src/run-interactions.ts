import {
  isInFlight,
  type ApproveBudgetArgs,
  type BudgetApproved,
  type HumanInputAccepted,
  type RunStatus,
  type WorkflowDefinition,
} from '@app/contracts';
import { DomainError, ErrorCode, humanAnswerOf } from '@app/domain';
import type { RunLauncher, TurnOutcome } from './run-launcher';
import type { RunReader } from './run-reader';

/**
 * What a person asks of a run in flight, each through its execution: cancel it, answer the step that waits
 * for them, let it spend more tokens, send it a message. Each is refused here when the run, as it stands,
 * cannot take it; the workflow's own validator refuses what changed since.
 */
export class RunInteractions {
  constructor(
    private readonly reader: RunReader,
    private readonly launcher: RunLauncher,
  ) {}

  async cancel(userId: string, runUuid: string): Promise<{ uuid: string; status: RunStatus; cancel_requested: true }> {
    const run = await this.reader.findRun(userId, runUuid);
    if (!isInFlight(run.status)) {
      throw new DomainError(ErrorCode.RunNotActive, `The run is ${run.status}: only running or awaiting_input runs can be cancelled`, {
        status: run.status,
      });
    }
    await this.launcher.cancel(run.temporal_workflow_id);
    return { uuid: runUuid, status: run.status, cancel_requested: true };
  }

  /**
   * A person's answer to a waiting human_input step: checked against the step's input_schema here (the
   * workflow cannot run ajv), then delivered through the workflow's Update, whose validator refuses it
   * unless that step waits now.
   */
  async answer(userId: string, runUuid: string, stepUuid: string, body: unknown): Promise<HumanInputAccepted> {
    const run = await this.reader.findRun(userId, runUuid);
    const { step, input } = humanAnswerOf(run.definition as WorkflowDefinition, stepUuid, body);
    if (run.status !== 'awaiting_input') {
      throw new DomainError(ErrorCode.StepNotAwaitingInput, `The run is ${run.status}: it waits for no input`, {
        field: 'step_uuid',
        status: run.status,
      });
    }
    return this.launcher.answer(run.temporal_workflow_id, { step_uuid: step.uuid, input });
  }

  /** A run waiting on its budget goes on with new limits. */
  async approveBudget(userId: string, runUuid: string, limits: ApproveBudgetArgs): Promise<BudgetApproved> {
    const run = await this.reader.findRun(userId, runUuid);
    if (run.budget?.paused_at_tokens === null || run.budget?.paused_at_tokens === undefined)
      throw new DomainError(ErrorCode.RunNotActive, 'The run is not waiting for a budget approval', {
        field: limits.max_tokens !== undefined ? 'max_tokens' : 'max_cost',
      });
    return this.launcher.approveBudget(run.temporal_workflow_id, limits);
  }

  /** A user message to a conversational run: the reply when its turn answers within `waitMs`, else the turn's id. */
  async sendMessage(userId: string, runUuid: string, content: string, waitMs: number): Promise<TurnOutcome> {
    const run = await this.reader.findRun(userId, runUuid);
    if (!(run.definition as WorkflowDefinition).graph?.is_conversational) {
      throw new DomainError(ErrorCode.NotConversational, 'The run is not a conversation: its workflow has no conversational graph', {
        field: 'run_uuid',
      });
    }
    if (!isInFlight(run.status))
      throw new DomainError(ErrorCode.RunNotActive, `The run is ${run.status}: the conversation is closed`, {
        field: 'run_uuid',
        status: run.status,
      });
    return this.launcher.sendMessage(run.temporal_workflow_id, { content }, waitMs);
  }
}

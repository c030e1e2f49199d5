import { Injectable } from '@nestjs/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  ASSISTANT_BUSY,
  ASSISTANT_MESSAGE_UPDATE,
  ASSISTANT_WORKFLOW_TYPE,
  assistantWorkflowId,
  type AssistantMessageArgs,
  type AssistantSessionInput,
  type AssistantTurnResult,
} from '@app/contracts';
import { DomainError, ErrorCode } from '@app/domain';
import { isTemporalUnreachable, temporalUnavailable } from './temporal-unavailable';
import { TemporalClient } from './temporal-client';

/** The assistant's sessions in Temporal: one workflow per session, one Update per message. */
export abstract class AssistantLauncher {
  abstract start(input: AssistantSessionInput): Promise<void>;
  /** Resolves once the workflow took the message (its turn then runs); a refusal is a coded 409. */
  abstract sendMessage(sessionUuid: string, args: AssistantMessageArgs): Promise<void>;
  /** Ends the session's workflow, if it still runs. */
  abstract stop(sessionUuid: string): Promise<void>;
}

@Injectable()
export class TemporalAssistantLauncher extends AssistantLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(input: AssistantSessionInput): Promise<void> {
    try {
      const client = await this.temporal.get();
      await client.workflow.start(ASSISTANT_WORKFLOW_TYPE, {
        workflowId: assistantWorkflowId(input.session_uuid),
        workflowIdConflictPolicy: 'USE_EXISTING',
        taskQueue: this.temporal.config.temporal.taskQueue,
        args: [
          {
            ...input,
            heartbeat_timeout_seconds: this.temporal.config.temporal.heartbeatTimeoutSeconds,
            turns_per_execution: this.temporal.config.temporal.conversationTurnsPerExecution,
            idle_timeout_seconds: this.temporal.config.assistant.idleTimeoutSeconds,
            max_turns: this.temporal.config.assistant.maxMessages,
            max_tool_rounds: this.temporal.config.assistant.maxToolRounds,
            correction_rounds: this.temporal.config.assistant.correctionRounds,
          },
        ],
        staticSummary: `assistant session ${input.session_uuid} (${input.mode})`,
        memo: { session_uuid: input.session_uuid, user_id: input.user_id },
      });
    } catch (error) {
      throw isTemporalUnreachable(error) ? temporalUnavailable() : error;
    }
  }

  async sendMessage(sessionUuid: string, args: AssistantMessageArgs): Promise<void> {
    const handle = (await this.temporal.get()).workflow.getHandle(assistantWorkflowId(sessionUuid));
    try {
      // The handler only takes the message (the turn runs in the workflow's main loop): it completes at once.
      await handle.executeUpdate<AssistantTurnResult, [AssistantMessageArgs]>(ASSISTANT_MESSAGE_UPDATE, { args: [args] });
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)) throw error;
      const busy = (error.cause as { type?: string } | undefined)?.type === ASSISTANT_BUSY;
      const message = busy ? 'A turn is running: send the next message once it has finished' : 'The session has ended: start a new one';
      throw new DomainError(busy ? ErrorCode.AssistantBusy : ErrorCode.AssistantClosed, message, { field: 'text' });
    }
  }

  async stop(sessionUuid: string): Promise<void> {
    try {
      await (await this.temporal.get()).workflow.getHandle(assistantWorkflowId(sessionUuid)).terminate('session deleted');
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}

import { Injectable } from '@nestjs/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { EVALUATION_WORKFLOW_TYPE, evaluationWorkflowId, type EvaluationWorkflowInput } from '@app/contracts';
import { isTemporalUnreachable, temporalUnavailable } from './temporal-unavailable';
import { TemporalClient } from './temporal-client';

/** Evaluations in Temporal (#30): one workflow per evaluation, its case runs its children. */
export abstract class EvaluationLauncher {
  abstract start(input: EvaluationWorkflowInput, summary: string): Promise<void>;
  /** Cancels it (and its case runs in flight), if it still runs. */
  abstract cancel(evaluationUuid: string): Promise<void>;
}

@Injectable()
export class TemporalEvaluationLauncher extends EvaluationLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(input: EvaluationWorkflowInput, summary: string): Promise<void> {
    try {
      const client = await this.temporal.get();
      await client.workflow.start(EVALUATION_WORKFLOW_TYPE, {
        workflowId: evaluationWorkflowId(input.evaluation_uuid),
        taskQueue: this.temporal.config.temporal.taskQueue,
        args: [input],
        staticSummary: summary,
        memo: { evaluation_uuid: input.evaluation_uuid, user_id: input.user_id },
      });
    } catch (error) {
      throw isTemporalUnreachable(error) ? temporalUnavailable() : error;
    }
  }

  async cancel(evaluationUuid: string): Promise<void> {
    try {
      await (await this.temporal.get()).workflow.getHandle(evaluationWorkflowId(evaluationUuid)).cancel();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}

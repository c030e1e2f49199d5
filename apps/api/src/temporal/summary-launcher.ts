import { Injectable } from '@nestjs/common';
import { SUMMARIZE_STEP_WORKFLOW_TYPE, summaryWorkflowId, type SummarizeStepInput } from '@app/contracts';
import { TemporalClient } from './temporal-client';

/** Starts the background workflow that writes a step's generated_summary. */
export abstract class SummaryLauncher {
  abstract start(input: SummarizeStepInput): Promise<void>;
}

@Injectable()
export class TemporalSummaryLauncher extends SummaryLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(input: SummarizeStepInput): Promise<void> {
    const client = await this.temporal.get();
    await client.workflow.start(SUMMARIZE_STEP_WORKFLOW_TYPE, {
      workflowId: summaryWorkflowId(input.step_uuid, input.source_hash),
      // A save repeated while it runs joins it; the same prompt coming back later asks again.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      taskQueue: this.temporal.config.temporal.taskQueue,
      args: [input],
      staticSummary: `generated_summary of step ${input.step_uuid}`,
    });
  }
}

import { Injectable } from '@nestjs/common';
import { SUMMARIZE_STEP_WORKFLOW_TYPE, type SummarizeStepInput } from '@app/contracts';
import { SummaryLauncher, summaryWorkflowOptions } from '@app/definitions';
import { TemporalClient } from './temporal-client';

/** The API's saves ask for step summaries through its own Temporal client. */
@Injectable()
export class TemporalSummaryLauncher extends SummaryLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(input: SummarizeStepInput): Promise<void> {
    const client = await this.temporal.get();
    await client.workflow.start(SUMMARIZE_STEP_WORKFLOW_TYPE, summaryWorkflowOptions(input, this.temporal.config.temporal.taskQueue));
  }
}

// The one call the definitions make back up into an app: a save asks for step summaries, which a Temporal
// workflow writes. Each app starts it with its own Temporal client, both with the same options.
import type { WorkflowStartOptions } from '@temporalio/client';
import { summaryWorkflowId, type SummarizeStepInput } from '@app/contracts';

/** Starts the background workflow (SUMMARIZE_STEP_WORKFLOW_TYPE) that writes a step's generated_summary. */
export abstract class SummaryLauncher {
  abstract start(input: SummarizeStepInput): Promise<void>;
}

/** One execution per step and source. */
export function summaryWorkflowOptions(input: SummarizeStepInput, taskQueue: string): WorkflowStartOptions {
  return {
    workflowId: summaryWorkflowId(input.step_uuid, input.source_hash),
    // A save repeated while it runs joins it; the same prompt coming back later asks again.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    taskQueue,
    args: [input],
    staticSummary: `generated_summary of step ${input.step_uuid}`,
  };
}

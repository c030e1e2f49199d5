// A step's generated_summary (one sentence on what an LLM or agent step does), written in the background: the API starts this workflow when a step's
// prompt or tools change, Temporal retries the model call, and every attempt failing marks the summary
// failed. It touches no run.
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { StepSummaryActivities, SummarizeStepInput } from '@app/contracts';
import { BOOKKEEPING_OPTIONS } from './activity-options';

const model = proxyActivities<StepSummaryActivities>({
  summary: 'summarize step',
  startToCloseTimeout: '3 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const bookkeeping = proxyActivities<StepSummaryActivities>(BOOKKEEPING_OPTIONS);

export async function summarizeStepWorkflow(input: SummarizeStepInput): Promise<void> {
  try {
    await model.summarizeStep(input);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await bookkeeping.failStepSummary({ ...input, error_message: error.cause?.message ?? error.message });
  }
}

// A step's generated_summary: a background workflow asks the model for a one-sentence summary of an
// LLM or agent step whenever its prompt or tools change, and stores it beside the step.

export const SUMMARIZE_STEP_WORKFLOW_TYPE = 'summarizeStepWorkflow';
/** One execution per step and source: a save that changes nothing starts nothing new. */
export const summaryWorkflowId = (stepUuid: string, sourceHash: string): string => `summary-${stepUuid}-${sourceHash.slice(0, 16)}`;

export type SummaryStatus = 'pending' | 'ready' | 'failed';

export interface SummarizeStepInput {
  step_uuid: string;
  user_id: string;
  /** The prompt and tools the summary is asked for; a later edit makes this one stale. */
  source_hash: string;
}

export interface StepSummaryActivities {
  /** Asks the model and stores the summary, unless the step changed since (then it does nothing). */
  summarizeStep(input: SummarizeStepInput): Promise<void>;
  /** Every attempt failed: the step's summary is marked failed with why. */
  failStepSummary(input: SummarizeStepInput & { error_message: string }): Promise<void>;
}

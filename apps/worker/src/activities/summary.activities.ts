import type { StepSummaryActivities } from '@app/contracts';
import type { StepSummaryService } from '../execution/step-summary.service';
import { inActivity } from './run.activities';

export function createSummaryActivities(summaries: StepSummaryService): StepSummaryActivities {
  return {
    summarizeStep: (input) => inActivity((scope) => summaries.summarize(input, scope)),
    failStepSummary: ({ error_message, ...input }) => summaries.fail(input, error_message),
  };
}

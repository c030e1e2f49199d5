// A run's token budget, kept by the workflow: after each step it asks how many tokens the run used; at the
// limit the run waits for an approval (a Temporal Update carrying a new limit) or a cancel. A refused
// approval (the run is not paused, or the limit is not above what was used) never enters the history.
import { ApplicationFailure, condition, defineUpdate, setHandler } from '@temporalio/workflow';
import {
  APPROVE_BUDGET_UPDATE,
  BUDGET_NOT_PAUSED,
  type ApproveBudgetArgs,
  type BudgetApproved,
  type RunActivities,
  type RunBudget,
} from '@app/contracts';

export const approveBudgetUpdate = defineUpdate<BudgetApproved, [ApproveBudgetArgs]>(APPROVE_BUDGET_UPDATE);

export interface BudgetGate {
  /** Returns at once under the limit; at it, waits for an approval. `bookkeeping`: the run's (RunScope). */
  check(runUuid: string, bookkeeping: RunActivities): Promise<void>;
}

/** Registers the approval handler (at the workflow's start, before any await) for a run with a budget. */
export function budgetGate(budget: RunBudget | undefined, runUuid: string): BudgetGate | null {
  if (!budget) return null;
  let max = budget.max_tokens;
  let paused: { used: number } | null = null;
  let approved: number | null = null;
  setHandler(
    approveBudgetUpdate,
    ({ max_tokens }) => {
      approved = max_tokens;
      return { run_uuid: runUuid, max_tokens };
    },
    {
      validator: ({ max_tokens }) => {
        if (!paused || approved !== null)
          throw ApplicationFailure.create({
            type: BUDGET_NOT_PAUSED,
            message: 'The run is not waiting for a budget approval',
            nonRetryable: true,
          });
        if (!(max_tokens > paused.used))
          throw ApplicationFailure.create({
            type: BUDGET_NOT_PAUSED,
            message: `max_tokens must be above the ${paused.used} tokens used`,
            nonRetryable: true,
          });
      },
    },
  );
  return {
    async check(run_uuid, bookkeeping) {
      const used = await bookkeeping.tokensUsed({ run_uuid });
      if (used < max) return;
      paused = { used };
      await bookkeeping.pauseForBudget({ run_uuid, used_tokens: used, max_tokens: max });
      await condition(() => approved !== null);
      max = approved!;
      paused = null;
      approved = null;
      await bookkeeping.resumeAfterBudget({ run_uuid, max_tokens: max });
    },
  };
}

// A run's budget, kept by the workflow: after each step it asks what the run used (tokens; with a limit in
// dollars, tokens and dollars); at a limit the run waits for an approval (a Temporal Update carrying new
// limits) or a cancel. A refused approval (the run is not paused, or a limit is not above what was used)
// never enters the history. A budget of tokens only asks `tokensUsed`, as budgets always did, so recorded
// histories replay unchanged.
import { ApplicationFailure, condition, defineUpdate, setHandler } from '@temporalio/workflow';
import {
  APPROVE_BUDGET_UPDATE,
  BUDGET_NOT_PAUSED,
  type ApproveBudgetArgs,
  type BudgetApproved,
  type RunActivities,
  type RunBudget,
  type RunSpend,
} from '@app/contracts';

export const approveBudgetUpdate = defineUpdate<BudgetApproved, [ApproveBudgetArgs]>(APPROVE_BUDGET_UPDATE);

export interface BudgetGate {
  /** Returns at once under the limits; at one, waits for an approval. `bookkeeping`: the run's (RunScope). */
  check(runUuid: string, bookkeeping: RunActivities): Promise<void>;
}

/** The limit `spent` reached, if any. */
function reached(limits: RunBudget, spent: RunSpend): 'max_tokens' | 'max_cost' | null {
  if (limits.max_tokens !== undefined && spent.tokens >= limits.max_tokens) return 'max_tokens';
  if (limits.max_cost !== undefined && spent.cost >= limits.max_cost) return 'max_cost';
  return null;
}

const refusal = (message: string) => ApplicationFailure.create({ type: BUDGET_NOT_PAUSED, message, nonRetryable: true });

/** Registers the approval handler (at the workflow's start, before any await) for a run with a budget. */
export function budgetGate(budget: RunBudget | undefined, runUuid: string): BudgetGate | null {
  if (!budget) return null;
  let limits: RunBudget = { ...budget };
  let paused: RunSpend | null = null;
  let approved: ApproveBudgetArgs | null = null;
  setHandler(
    approveBudgetUpdate,
    (args) => {
      approved = args;
      return { run_uuid: runUuid, ...limits, ...args };
    },
    {
      validator: (args) => {
        if (!paused || approved !== null) throw refusal('The run is not waiting for a budget approval');
        const next = { ...limits, ...args };
        if (reached({ max_tokens: next.max_tokens }, paused)) throw refusal(`max_tokens must be above the ${paused.tokens} tokens used`);
        if (reached({ max_cost: next.max_cost }, paused)) throw refusal(`max_cost must be above the ${paused.cost} dollars used`);
      },
    },
  );
  const inDollars = budget.max_cost !== undefined;
  return {
    async check(run_uuid, bookkeeping) {
      const spent = inDollars ? await bookkeeping.runSpend({ run_uuid }) : { tokens: await bookkeeping.tokensUsed({ run_uuid }), cost: 0 };
      if (!reached(limits, spent)) return;
      paused = spent;
      await bookkeeping.pauseForBudget({
        run_uuid,
        used_tokens: spent.tokens,
        max_tokens: limits.max_tokens,
        ...(inDollars ? { used_cost: spent.cost, max_cost: limits.max_cost } : {}),
      });
      await condition(() => approved !== null);
      limits = { ...limits, ...approved! };
      paused = null;
      approved = null;
      await bookkeeping.resumeAfterBudget({ run_uuid, ...limits });
    },
  };
}

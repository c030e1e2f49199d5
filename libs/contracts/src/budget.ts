// A run's budget in tokens, in dollars, or both: when what its model calls used reaches a limit, the run
// waits (awaiting_input) for an approval with new limits, through a Temporal Update, or for a cancel.

export const APPROVE_BUDGET_UPDATE = 'approveBudget';
/** The failure type the update's validator refuses with when the run is not paused on its budget. */
export const BUDGET_NOT_PAUSED = 'BudgetNotPaused';

/** At least one limit. Budgets written before dollars always have `max_tokens`. */
export interface RunBudget {
  max_tokens?: number;
  /** US dollars at the configured prices (calls of unpriced models count nothing). */
  max_cost?: number;
}

/** A budget's limits alone (a stored BudgetState also says what was used): the workflow's input. */
export const budgetLimits = ({ max_tokens, max_cost }: RunBudget): RunBudget => ({
  ...(max_tokens !== undefined && max_tokens !== null ? { max_tokens } : {}),
  ...(max_cost !== undefined && max_cost !== null ? { max_cost } : {}),
});

/** What GET /runs/{uuid} shows of the budget: the limits, and while paused, the tokens (and dollars) used. */
export interface BudgetState extends RunBudget {
  paused_at_tokens: number | null;
  paused_at_cost?: number | null;
}

/** What a run's completed model calls used: what its budget counts. */
export interface RunSpend {
  tokens: number;
  cost: number;
}

/** The new limits: each one given replaces the run's, and the run must then be under every limit. */
export interface ApproveBudgetArgs {
  max_tokens?: number;
  max_cost?: number;
}

export interface BudgetApproved extends RunBudget {
  run_uuid: string;
}

/**
 * A run paused on its user's spend limit (a model call refused with SPEND_LIMIT_REACHED, non-retryable so the
 * run waits for it rather than Temporal's retry) tries the call again at the period's reset, or at once on this
 * signal: sent when the user's limits changed (their own, or the operator's at an API start) or they ask.
 */
export const RECHECK_SPEND_SIGNAL = 'recheckSpend';
/** The failure type of a model call refused at the user's spend limit; its details' first item holds `resets_at`. */
export const SPEND_LIMIT_REACHED_FAILURE = 'SPEND_LIMIT_REACHED';

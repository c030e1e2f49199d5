// A run's token budget: when the tokens its model calls used reach it, the run waits (awaiting_input) for
// an approval with a new limit, through a Temporal Update, or for a cancel.

export const APPROVE_BUDGET_UPDATE = 'approveBudget';
/** The failure type the update's validator refuses with when the run is not paused on its budget. */
export const BUDGET_NOT_PAUSED = 'BudgetNotPaused';

export interface RunBudget {
  max_tokens: number;
}

/** What GET /runs/{uuid} shows of the budget: the limit, and while paused, the tokens used. */
export interface BudgetState extends RunBudget {
  paused_at_tokens: number | null;
}

export interface ApproveBudgetArgs {
  /** The new limit: more than the tokens used so far. */
  max_tokens: number;
}

export interface BudgetApproved {
  run_uuid: string;
  max_tokens: number;
}

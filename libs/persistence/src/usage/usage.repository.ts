/** Tokens and dollars of a group of completed model calls. */
export interface UsageFigures {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  total_tokens: number;
  /** Dollars of the priced calls. */
  cost: number;
  /** Calls whose model has no price: `cost` leaves them out. */
  unpriced_calls: number;
}

/** A user's model calls in [from, to), summed whole and by UTC day, by workflow and by provider and model. */
export interface UsageReport {
  total: UsageFigures;
  by_day: (UsageFigures & { day: string })[];
  by_workflow: (UsageFigures & { workflow_uuid: string; workflow_name: string })[];
  by_model: (UsageFigures & { provider: string | null; model: string })[];
}

/** What users' model calls used and cost, read from the call audit (`model_calls` through the user's runs). */
export abstract class UsageRepository {
  abstract report(userId: string, from: Date, to: Date): Promise<UsageReport>;
}

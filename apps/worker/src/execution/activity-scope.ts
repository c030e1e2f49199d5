/** What a step service needs from the activity that runs it, without depending on Temporal. */
export interface ActivityScope {
  signal: AbortSignal;
  attempt: number;
}

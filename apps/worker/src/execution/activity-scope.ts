/**
 * How long one local activity goes on from an agent's round to the next, or from a chain's step to the next:
 * past it, the activity hands back to the workflow (a local activity has no heartbeat; a worker that dies
 * mid-activity has the next one walk its rounds or steps again, finding those done).
 */
export const SHARED_ACTIVITY_MS = 30_000;

/** What a step service needs from the activity that runs it, without depending on Temporal. */
export interface ActivityScope {
  signal: AbortSignal;
  attempt: number;
}

// A run stopped because one of its calls kept dying with the workers that ran it (issue #26). The worker
// refuses the call's next attempt with a failure of this type; the workflow, seeing it, ends the whole run
// instead of going on without the step. Pure, so workflow code may import it.

/** The failure type (and the error code) of a call refused after POISON_ATTEMPTS_LIMIT attempts died in flight. */
export const RUN_QUARANTINED = 'RUN_QUARANTINED';

/** Whether a Temporal failure, at any layer (ActivityFailure, its ApplicationFailure cause), is a quarantine. */
export function isQuarantine(error: unknown): boolean {
  for (let current = error as { type?: unknown; cause?: unknown } | undefined; current; current = current.cause as typeof current) {
    if (current.type === RUN_QUARANTINED) return true;
  }
  return false;
}

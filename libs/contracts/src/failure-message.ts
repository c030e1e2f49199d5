// How a Temporal failure reads to a person: the workflow writes it on a failed step, the API on a refused
// update or a failed execution. Temporal wraps the error that happened (an activity's, a validator's) in
// failures of its own (ActivityFailure, WorkflowUpdateFailedError...), each with the next as its `cause`.
// Pure, so workflow code may import it.

/** The innermost cause's message: what went wrong, not which layer reported it. */
export function failureMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current?.message || String(error);
}

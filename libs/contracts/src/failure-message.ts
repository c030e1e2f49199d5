// How a Temporal failure reads to a person: the workflow writes it on a failed step, the API on a refused
// update or a failed execution. Temporal wraps the error that happened (an activity's, a validator's) in
// failures of its own (ActivityFailure, WorkflowUpdateFailedError...), each with the next as its `cause`.
// Pure, so workflow code may import it.
import { scrubSecrets } from './secret-scrub';

/**
 * The innermost cause's message: what went wrong, not which layer reported it. Scrubbed of what looks like
 * a secret (a query string, a credential) once more: the worker scrubs what it sends, but this is what a
 * step's error_message and a run's keep.
 */
export function failureMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return scrubSecrets(current?.message || String(error));
}

import { classifyModelError, ModelCallError } from './model-call-error';

/**
 * A provider call under our deadline and the caller's signal, its failure a ModelCallError. The deadline is
 * ours (it covers reading the body too, and tells a timeout from a dropped connection whatever the runtime's
 * abort errors look like); the SDKs' own timeouts are only backstops.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  try {
    return await call(signal);
  } catch (error) {
    if (error instanceof ModelCallError) throw error;
    if (callerSignal?.aborted) throw new ModelCallError({ kind: 'aborted', retryable: false, message: 'model call aborted', cause: error });
    if (deadline.aborted)
      throw new ModelCallError({ kind: 'timeout', retryable: true, message: `model call timed out after ${timeoutMs} ms`, cause: error });
    throw classifyModelError(error);
  }
}

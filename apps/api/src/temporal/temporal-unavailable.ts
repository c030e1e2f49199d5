import { isGrpcServiceError } from '@temporalio/client';
import { DomainError, ErrorCode } from '@app/domain';

/** gRPC UNAVAILABLE: the server could not be reached, so the call had no effect. */
const UNAVAILABLE = 14;
/** gRPC DEADLINE_EXCEEDED: the answer came too late, but the call may have taken effect. */
const DEADLINE_EXCEEDED = 4;

const causes = function* (error: unknown): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) yield current;
};

/** A start whose answer never came: the execution may exist. */
export function isTemporalLate(error: unknown): boolean {
  return [...causes(error)].some((current) => isGrpcServiceError(current) && current.code === DEADLINE_EXCEEDED);
}

/** Whether a Temporal call failed because the server could not be reached (the call had no effect). */
export function isTemporalUnreachable(error: unknown): boolean {
  for (const current of causes(error)) {
    if (isGrpcServiceError(current) && current.code === UNAVAILABLE) return true;
    // Connection.connect fails with a plain error before any gRPC call
    if (/Failed to connect|ECONNREFUSED|connect ETIMEDOUT|No connection established/i.test((current as Error).message ?? '')) return true;
  }
  return false;
}

export function temporalUnavailable(): DomainError {
  return new DomainError(ErrorCode.TemporalUnavailable, 'Temporal is not reachable right now: nothing was started, try again shortly');
}

import { isGrpcServiceError } from '@temporalio/client';
import { DomainError, ErrorCode } from '@app/domain';

/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the server is down or unreachable, not refusing the call. */
const UNREACHABLE_CODES = new Set([14, 4]);

/** Whether a Temporal call failed because the server could not be reached (the call had no effect). */
export function isTemporalUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(current) && UNREACHABLE_CODES.has(current.code)) return true;
    // Connection.connect fails with a plain error before any gRPC call
    if (/Failed to connect|ECONNREFUSED|connect ETIMEDOUT|No connection established/i.test((current as Error).message ?? '')) return true;
  }
  return false;
}

export function temporalUnavailable(): DomainError {
  return new DomainError(ErrorCode.TemporalUnavailable, 'Temporal is not reachable right now: nothing was started, try again shortly');
}

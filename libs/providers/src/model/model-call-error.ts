// Which model failures are worth another attempt. Temporal does the retrying; this only classifies.

export type ModelErrorKind =
  | 'rate_limited'
  | 'server'
  | 'timeout'
  | 'network'
  | 'conflict'
  | 'bad_request'
  | 'auth'
  | 'not_found'
  | 'unprocessable'
  | 'malformed_response'
  | 'aborted';

export class ModelCallError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

const BY_STATUS: Record<number, [ModelErrorKind, boolean]> = {
  400: ['bad_request', false],
  401: ['auth', false],
  403: ['auth', false],
  404: ['not_found', false],
  408: ['timeout', true],
  409: ['conflict', true],
  422: ['unprocessable', false],
  429: ['rate_limited', true],
};

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function classifyHttpStatus(status: number, message: string, retryAfter?: number): ModelCallError {
  const [kind, retryable] = BY_STATUS[status] ?? (status >= 500 ? ['server', true] : ['bad_request', false]);
  return new ModelCallError(kind, `model provider answered ${status}: ${message}`, retryable, status, retryAfter);
}

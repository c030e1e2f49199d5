// Which model failures are worth another attempt. Temporal does the retrying; this only classifies.
import * as anthropic from '@anthropic-ai/sdk';
import * as openai from 'openai';

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

export interface ModelCallErrorFields {
  kind: ModelErrorKind;
  message: string;
  retryable: boolean;
  /** The provider's HTTP status, when it answered. */
  status?: number;
  /** How long the provider asked us to wait (`retry-after-ms` / `retry-after`); only on retryable errors. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class ModelCallError extends Error {
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(fields: ModelCallErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'ModelCallError';
    this.kind = fields.kind;
    this.retryable = fields.retryable;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
  }
}

/** A provider's 200 that is not an answer (a broken proxy or provider): worth a retry. */
export const malformedResponse = (what: string) =>
  new ModelCallError({ kind: 'malformed_response', retryable: true, message: `model provider answered malformed data: ${what}` });

/** A request no provider could take (our bug, not theirs): final. */
export const invalidModelRequest = (what: string) =>
  new ModelCallError({ kind: 'bad_request', retryable: false, message: `invalid model request: ${what}` });

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

interface HeaderBag {
  get(name: string): string | null | undefined;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: HeaderBag | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A provider's HTTP error answer: 408, 409, 429 and 5xx are worth retrying, other 4xx are final.
 * `providerMessage` is the provider's own words (`error.message` of its body).
 */
export function classifyHttpStatus(status: number, providerMessage: string, headers?: HeaderBag): ModelCallError {
  const [kind, retryable] = BY_STATUS[status] ?? (status >= 500 ? ['server', true] : ['bad_request', false]);
  const wait = retryable ? retryAfterMs(headers) : undefined;
  return new ModelCallError({
    kind,
    retryable,
    status,
    retryAfterMs: wait,
    message: `model provider answered ${status}: ${providerMessage}`,
  });
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Both SDKs have the same error classes, each its own: an error of either is classified alike. */
const SDK_ERRORS = {
  abort: [openai.APIUserAbortError, anthropic.APIUserAbortError],
  timeout: [openai.APIConnectionTimeoutError, anthropic.APIConnectionTimeoutError],
  connection: [openai.APIConnectionError, anthropic.APIConnectionError],
  api: [openai.APIError, anthropic.APIError],
} satisfies Record<string, ErrorClass[]>;

const isOne = (error: unknown, classes: ErrorClass[]): error is Error => classes.some((type) => error instanceof type);

/**
 * Any failure of a model call as a ModelCallError. Pure: it reads the `openai` and `@anthropic-ai/sdk`
 * SDKs' error classes (and what fetch and JSON parsing throw) and nothing else.
 */
export function classifyModelError(error: unknown): ModelCallError {
  if (error instanceof ModelCallError) return error;
  // The SDKs' abort, timeout and connection errors extend APIError without a status: test them first.
  if (isOne(error, SDK_ERRORS.abort) || isDomError(error, 'AbortError')) {
    return new ModelCallError({ kind: 'aborted', retryable: false, message: 'model call aborted', cause: error });
  }
  if (isOne(error, SDK_ERRORS.timeout) || isDomError(error, 'TimeoutError')) {
    return new ModelCallError({ kind: 'timeout', retryable: true, message: 'model call timed out', cause: error });
  }
  if (isOne(error, SDK_ERRORS.connection)) {
    return new ModelCallError({
      kind: 'network',
      retryable: true,
      message: `model provider unreachable: ${describeCause(error)}`,
      cause: error,
    });
  }
  const answered = error as openai.APIError | anthropic.APIError;
  if (isOne(error, SDK_ERRORS.api) && answered.status !== undefined)
    return classifyHttpStatus(answered.status, providerMessageOf(answered), answered.headers);
  // fetch fails reading a body the server cut off with a TypeError ("terminated").
  if (error instanceof TypeError && error.cause !== undefined) {
    return new ModelCallError({
      kind: 'network',
      retryable: true,
      message: `model provider connection failed: ${error.message}`,
      cause: error,
    });
  }
  // A 200 whose body is not JSON (SyntaxError) or not a completion: a broken proxy or provider, worth a retry.
  const detail = error instanceof Error ? error.message : String(error);
  return new ModelCallError({
    kind: 'malformed_response',
    retryable: true,
    message: `model provider answered malformed data: ${detail}`,
    cause: error,
  });
}

/**
 * The provider's own words: OpenAI's SDK keeps the body's `error` object (`{message}`), Anthropic's the
 * whole body (`{type: "error", error: {type, message}}`).
 */
function providerMessageOf(error: openai.APIError | anthropic.APIError): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.message ?? body?.error?.message;
  return typeof message === 'string' ? message : error.message;
}

/** "fetch failed (connect ECONNREFUSED 127.0.0.1:1)": the innermost messages say what happened. */
function describeCause(error: Error): string {
  const parts: string[] = [];
  for (let current: unknown = error.cause ?? error; current && parts.length < 3; current = (current as { cause?: unknown }).cause) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message) parts.push(message);
  }
  return parts.length > 1 ? `${parts[0]} (${parts.slice(1).join(': ')})` : (parts[0] ?? 'connection error');
}

function isDomError(error: unknown, name: string): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name && !isOne(error, SDK_ERRORS.api);
}

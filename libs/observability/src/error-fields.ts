// Errors as log fields. A business failure (a step failing, a tool refusing) is expected: its type and
// message on the line are enough. A stack trace is kept only for what looks like a bug. Every text is
// scrubbed of what looks like a secret (a query string, a credential) and of the secrets the process knows.
import { scrubbed } from './known-secrets';

interface FailureLike {
  name?: string;
  message?: string;
  type?: string | null;
  nonRetryable?: boolean;
  stack?: string;
  cause?: unknown;
}

const EXPECTED = new Set([
  'ApplicationFailure',
  'ActivityFailure',
  'CancelledFailure',
  'TimeoutFailure',
  'DomainError',
  'ToolCallError',
  'ModelCallError',
]);

export function errorFields(error: unknown): Record<string, unknown> {
  if (!error || typeof error !== 'object') return { message: String(error) };
  const failure = error as FailureLike;
  // Errors that crossed from workflow code through the SDK's sink are copies: their stack still names them.
  const named = [failure.name, failure.constructor?.name, failure.stack?.split(':')[0]];
  const expected = named.some((name) => EXPECTED.has(name ?? '')) || typeof failure.type === 'string';
  const cause = failure.cause && typeof failure.cause === 'object' ? (failure.cause as FailureLike) : undefined;
  return {
    name: failure.name,
    message: oneLine(failure.message),
    ...(failure.type ? { type: failure.type } : {}),
    ...(failure.nonRetryable !== undefined ? { non_retryable: failure.nonRetryable } : {}),
    ...(cause?.message ? { cause: oneLine(cause.message) } : {}),
    ...(!expected && failure.stack ? { stack: scrubbed(failure.stack) } : {}),
  };
}

function oneLine(text: string | undefined): string | undefined {
  return text === undefined ? undefined : scrubbed(text).replace(/\s*\n\s*/g, ' | ');
}

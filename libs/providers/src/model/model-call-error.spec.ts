// The classification alone, from the SDK's error objects: no HTTP.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import * as anthropic from '@anthropic-ai/sdk';
import { classifyModelError, ModelCallError, retryAfterMs } from './model-call-error';

const apiError = (status: number, headers: Record<string, string> = {}, body: unknown = { error: { message: 'provider says no' } }) =>
  APIError.generate(status, body as object, undefined, new Headers(headers));

describe(classifyModelError.name, () => {
  it.each([
    [408, 'timeout'],
    [409, 'conflict'],
    [429, 'rate_limited'],
    [500, 'server'],
    [502, 'server'],
    [503, 'server'],
    [529, 'server'],
  ])('makes %i retryable (%s)', (status, kind) => {
    expect(classifyModelError(apiError(status))).toMatchObject({
      kind,
      retryable: true,
      status,
      message: `model provider answered ${status}: provider says no`,
    });
  });

  it.each([
    [400, 'bad_request'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [413, 'bad_request'],
    [422, 'unprocessable'],
  ])('makes %i final (%s)', (status, kind) => {
    expect(classifyModelError(apiError(status))).toMatchObject({ kind, retryable: false, status });
  });

  it('honours retry-after on retryable answers only', () => {
    expect(classifyModelError(apiError(429, { 'retry-after': '2' })).retryAfterMs).toBe(2000);
    expect(classifyModelError(apiError(503, { 'retry-after-ms': '1500', 'retry-after': '9' })).retryAfterMs).toBe(1500);
    expect(classifyModelError(apiError(400, { 'retry-after': '2' })).retryAfterMs).toBeUndefined();
    expect(classifyModelError(apiError(500)).retryAfterMs).toBeUndefined();
  });

  it('falls back to the SDK message when the body has none', () => {
    expect(classifyModelError(APIError.generate(502, undefined, undefined, new Headers())).message).toBe(
      'model provider answered 502: 502 status code (no body)',
    );
  });

  it('classifies aborts, timeouts and connection failures', () => {
    expect(classifyModelError(new APIUserAbortError())).toMatchObject({ kind: 'aborted', retryable: false });
    expect(classifyModelError(new DOMException('aborted', 'AbortError'))).toMatchObject({ kind: 'aborted', retryable: false });
    expect(classifyModelError(new APIConnectionTimeoutError())).toMatchObject({ kind: 'timeout', retryable: true });
    expect(classifyModelError(new APIConnectionError({ cause: new Error('ECONNREFUSED') }))).toMatchObject({
      kind: 'network',
      retryable: true,
      message: expect.stringContaining('ECONNREFUSED'),
    });
    expect(classifyModelError(new TypeError('terminated', { cause: new Error('other side closed') }))).toMatchObject({
      kind: 'network',
      retryable: true,
    });
  });

  it('makes an unparseable answer a retryable malformed response', () => {
    const error = classifyModelError(new SyntaxError('Unexpected token t'));

    expect(error).toMatchObject({ kind: 'malformed_response', retryable: true, message: expect.stringContaining('Unexpected token t') });
    expect(error.status).toBeUndefined();
  });

  it('passes a ModelCallError through', () => {
    const error = new ModelCallError({ kind: 'bad_request', retryable: false, message: 'no' });
    expect(classifyModelError(error)).toBe(error);
  });
});

describe(retryAfterMs.name, () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it('reads milliseconds, seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after-ms': '120' }), now)).toBe(120);
    expect(retryAfterMs(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now)).toBe(10_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon', 'retry-after-ms': 'x' }))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': '-3' }))).toBeUndefined();
  });
});

describe(`${classifyModelError.name} of Anthropic's SDK errors`, () => {
  const anthropicError = (status: number, headers: Record<string, string> = {}) =>
    anthropic.APIError.generate(
      status,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      new Headers(headers),
    );

  it('classifies them by the same table, with the message of their error body', () => {
    expect(classifyModelError(anthropicError(529, { 'retry-after': '3' }))).toMatchObject({
      kind: 'server',
      retryable: true,
      status: 529,
      retryAfterMs: 3000,
      message: 'model provider answered 529: Overloaded',
    });
    expect(classifyModelError(anthropicError(429))).toMatchObject({ kind: 'rate_limited', retryable: true });
    expect(classifyModelError(anthropicError(401))).toMatchObject({ kind: 'auth', retryable: false });
  });

  it('classifies aborts, timeouts and connection failures', () => {
    expect(classifyModelError(new anthropic.APIUserAbortError())).toMatchObject({ kind: 'aborted', retryable: false });
    expect(classifyModelError(new anthropic.APIConnectionTimeoutError())).toMatchObject({ kind: 'timeout', retryable: true });
    expect(classifyModelError(new anthropic.APIConnectionError({ cause: new Error('ECONNREFUSED') }))).toMatchObject({
      kind: 'network',
      retryable: true,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });
});

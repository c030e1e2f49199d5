import {
  BadRequestException,
  HttpException,
  HttpStatus,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
  type ArgumentsHost,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '@app/domain';
import { ApiExceptionFilter } from './exception.filter';
import { statusOf } from './error-status';
import { requestIdMiddleware } from './request-id';

/** One request through the request-id middleware and the filter; returns what the client would get. */
function answer(error: unknown, requestId = 'req-1') {
  const headers: Record<string, string> = { 'x-request-id': requestId };
  const request = { header: (name: string) => headers[name.toLowerCase()] } as unknown as Request;
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const response = {
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
  } as unknown as Response;
  requestIdMiddleware(request, response, () => undefined);
  const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(error, host);
  return sent;
}

describe(ApiExceptionFilter.name, () => {
  let logged: jest.SpyInstance;
  beforeEach(() => (logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined)));
  afterEach(() => logged.mockRestore());

  it('answers a domain error with its status, code, message, details and the request id', () => {
    const error = new DomainError(ErrorCode.DuplicateStepName, 'steps[1].name repeats', { field: 'steps[1].name' });
    expect(answer(error)).toMatchObject({
      status: 422,
      body: { code: 'DUPLICATE_STEP_NAME', message: 'steps[1].name repeats', details: { field: 'steps[1].name' }, request_id: 'req-1' },
      headers: { 'X-Request-Id': 'req-1' },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it.each([
    [new BadRequestException('Unexpected end of JSON input'), 400, 'INVALID_BODY'],
    [new HttpException('unsupported charset "LATIN9"', HttpStatus.UNSUPPORTED_MEDIA_TYPE), 400, 'INVALID_BODY'],
    [new PayloadTooLargeException('request entity too large'), 413, 'PAYLOAD_TOO_LARGE'],
    [new NotFoundException('Cannot GET /nowhere'), 404, 'NOT_FOUND'],
  ])('gives the framework error %p a code', (error, status, code) => {
    expect(answer(error)).toMatchObject({ status, body: { code, request_id: 'req-1' } });
    expect(logged).not.toHaveBeenCalled();
  });

  it('keeps the reason a body could not be parsed', () => {
    expect(answer(new BadRequestException('Unexpected end of JSON input')).body).toMatchObject({
      details: { field: 'body', reason: 'Unexpected end of JSON input' },
    });
  });

  it.each([
    ['a plain error', new Error('ER_ACCESS_DENIED for user root at 10.0.0.3')],
    ['a server-side HttpException', new HttpException('EACCES /etc/secret', 500)],
    ['a thrown string', 'boom'],
  ])('answers %s with a bare 500 and logs it with the request id', (_case, error) => {
    const sent = answer(error, 'req-500');
    expect(sent).toMatchObject({ status: 500, body: { code: 'INTERNAL', message: 'Internal error', details: {}, request_id: 'req-500' } });
    expect(JSON.stringify(sent.body)).not.toMatch(/ER_ACCESS|EACCES|boom/);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('request req-500 failed'));
  });

  it.each([
    ['MySQL at its max_connections', Object.assign(new Error('Too many connections'), { code: 'ER_CON_COUNT_ERROR', errno: 1040 })],
    ['a connection lost under the request', Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true })],
  ])('answers %s with a 503 the client may repeat after a second, and still logs it', (_case, error) => {
    const sent = answer(error, 'req-db');
    expect(sent).toMatchObject({
      status: 503,
      body: { code: 'DATABASE_UNAVAILABLE', request_id: 'req-db' },
      headers: { 'Retry-After': '1' },
    });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('request req-db: the database did not take it'));
  });
});

describe(statusOf.name, () => {
  const notValidation: [ErrorCode, number][] = [
    [ErrorCode.InvalidBody, 400],
    [ErrorCode.UsageRangeTooLong, 400],
    [ErrorCode.PayloadTooLarge, 413],
    [ErrorCode.NotFound, 404],
    [ErrorCode.Unauthorized, 401],
    [ErrorCode.Conflict, 409],
    [ErrorCode.RunNotActive, 409],
    [ErrorCode.RunStillRunning, 409],
    [ErrorCode.ToolDrift, 409],
    [ErrorCode.StepNotAwaitingInput, 409],
    [ErrorCode.ConversationBusy, 409],
    [ErrorCode.NotConversational, 409],
    [ErrorCode.AssistantBusy, 409],
    [ErrorCode.AssistantClosed, 409],
    [ErrorCode.RunQuarantined, 409],
    [ErrorCode.ReplayToolNotReplayable, 409],
    [ErrorCode.UuidTaken, 409],
    [ErrorCode.UserIdConfusable, 409],
    [ErrorCode.TemporalUnavailable, 503],
    [ErrorCode.DatabaseUnavailable, 503],
    [ErrorCode.WebhooksBusy, 503],
    [ErrorCode.McpServerUnavailable, 502],
    [ErrorCode.RateLimited, 429],
    [ErrorCode.TooManyRunsInFlight, 429],
    [ErrorCode.SpendLimitReached, 429],
    [ErrorCode.RunBudgetReached, 429],
    [ErrorCode.TooManySchedules, 409],
    [ErrorCode.TooManyStreams, 429],
    [ErrorCode.WebhookSignatureInvalid, 401],
    [ErrorCode.WebhookSignatureStale, 401],
    [ErrorCode.WebhookReplayed, 401],
  ];
  it.each(notValidation)('maps %s to %d', (code, status) => expect(statusOf(code)).toBe(status));

  it('maps every validation code to 422', () => {
    const special = new Set(notValidation.map(([code]) => code));
    const validation = Object.values(ErrorCode).filter((code) => !special.has(code));
    expect(validation.length).toBeGreaterThan(5);
    for (const code of validation) expect([code, statusOf(code)]).toEqual([code, 422]);
  });
});

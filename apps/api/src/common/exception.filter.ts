// The one place errors become HTTP answers: `{code, message, details, request_id}`. Internals are logged
// with the request id, never returned.
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '@app/domain';
import { isConnectionRefused, isLostConnection } from '@app/persistence';
import { statusOf } from './error-status';
import { requestIdOf } from './request-id';

/**
 * Framework errors reach us as HttpExceptions: the JSON parser's (malformed body 400, over the limit 413,
 * unsupported charset or encoding 415, aborted upload 400) and Express's unknown route (404). Each gets a
 * code like any domain error. Their messages are safe to show: Nest keeps only the status text of any
 * http-error not marked `expose`. A 5xx is a fault of ours and stays internal.
 */
export function fromHttpException(error: HttpException): DomainError | null {
  const status = error.getStatus();
  if (status === HttpStatus.NOT_FOUND) return new DomainError(ErrorCode.NotFound, 'No such route');
  if (status === HttpStatus.PAYLOAD_TOO_LARGE) {
    return new DomainError(ErrorCode.PayloadTooLarge, 'The request body is larger than allowed', { field: 'body' });
  }
  if (status >= 400 && status < 500) {
    return new DomainError(ErrorCode.InvalidBody, 'The request body could not be read as JSON', { field: 'body', reason: error.message });
  }
  return null;
}

/** MySQL at its max_connections, or a connection lost under the request: the client's to repeat, not our fault to hide. */
function databaseUnavailable(error: unknown): DomainError | null {
  if (!isConnectionRefused(error) && !isLostConnection(error)) return null;
  return new DomainError(ErrorCode.DatabaseUnavailable, 'The database did not take the request: repeat it shortly', {
    retry_after_seconds: 1,
  });
}

function toDomainError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  return error instanceof HttpException ? fromHttpException(error) : databaseUnavailable(error);
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const request_id = requestIdOf(request);
    const domain = toDomainError(error);
    if (domain?.code === ErrorCode.DatabaseUnavailable)
      this.logger.error(`request ${request_id}: the database did not take it: ${String(error)}`);
    if (domain) {
      const retryAfter = domain.details.retry_after_seconds;
      if (typeof retryAfter === 'number') response.setHeader('Retry-After', String(retryAfter));
      response.status(statusOf(domain.code)).json({ code: domain.code, message: domain.message, details: domain.details, request_id });
      return;
    }
    this.logger.error(`request ${request_id} failed: ${(error as Error)?.stack ?? String(error)}`);
    response.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ code: 'INTERNAL', message: 'Internal error', details: {}, request_id });
  }
}

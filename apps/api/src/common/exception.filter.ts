// The one place errors become HTTP answers: `{code, message, details, request_id}`. Internals are logged
// with the request id, never returned.
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '@app/domain';
import { statusOf } from './error-status';
import { requestIdOf } from './request-id';

/** Framework errors that reach us as HttpExceptions (body parsing, unknown routes) keep a code too. */
const HTTP_CODES: Partial<Record<number, [ErrorCode, string]>> = {
  [HttpStatus.BAD_REQUEST]: [ErrorCode.InvalidBody, 'The request body is not valid JSON'],
  [HttpStatus.PAYLOAD_TOO_LARGE]: [ErrorCode.PayloadTooLarge, 'The request body is larger than allowed'],
  [HttpStatus.NOT_FOUND]: [ErrorCode.NotFound, 'No such route'],
};

function toDomainError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  const known = error instanceof HttpException ? HTTP_CODES[error.getStatus()] : undefined;
  return known ? new DomainError(known[0], known[1], error instanceof HttpException && error.getStatus() !== 404 ? { field: 'body' } : {}) : null;
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
    if (domain) {
      response.status(statusOf(domain.code)).json({ code: domain.code, message: domain.message, details: domain.details, request_id });
      return;
    }
    this.logger.error(`request ${request_id} failed: ${(error as Error)?.stack ?? String(error)}`);
    response.status(500).json({ code: 'INTERNAL', message: 'Internal error', details: {}, request_id });
  }
}

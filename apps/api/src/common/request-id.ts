import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { logContext } from '@app/observability';

const KEY = Symbol('request-id');

/**
 * Gives each request an id (the caller's X-Request-Id when sane) echoed in the response, in errors and on
 * every log line written while the request is handled.
 */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const given = request.header('x-request-id');
  const id = given && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
  (request as unknown as Record<symbol, string>)[KEY] = id;
  response.setHeader('X-Request-Id', id);
  logContext.run({ request_id: id }, next);
}

export function requestIdOf(request: Request): string {
  return (request as unknown as Record<symbol, string>)[KEY] ?? 'unknown';
}

import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const KEY = Symbol('request-id');

/** Gives each request an id (the caller's X-Request-Id when sane) echoed in the response and in errors. */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const given = request.header('x-request-id');
  const id = given && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
  (request as unknown as Record<symbol, string>)[KEY] = id;
  response.setHeader('X-Request-Id', id);
  next();
}

export function requestIdOf(request: Request): string {
  return (request as unknown as Record<symbol, string>)[KEY] ?? 'unknown';
}

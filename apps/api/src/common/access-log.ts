import type { NextFunction, Request, Response } from 'express';
import type { Logger, Metrics } from '@app/observability';

/**
 * One line per request when its answer is sent: method, path, status and duration (request_id and user_id
 * come with the log context); the duration is also measured by route pattern.
 */
export function accessLog(logger: Logger, metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const duration_ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = response.statusCode;
      const route = (request.route as { path?: string } | undefined)?.path ?? 'unmatched';
      metrics.httpRequestDuration.observe({ method: request.method, route, status: String(status) }, duration_ms / 1000);
      const level = status >= 500 ? 'error' : 'info';
      logger[level](
        { method: request.method, path: request.originalUrl.split('?')[0], status, duration_ms: Math.round(duration_ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}

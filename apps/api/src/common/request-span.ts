import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { stepwiseTracer } from '@app/observability';

/** A server span per request (installed only while tracing is on): the root of a run's trace. */
export function requestSpan(request: Request, response: Response, next: NextFunction): void {
  const span = stepwiseTracer().startSpan(`${request.method} ${request.path}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': request.method, 'url.path': request.originalUrl.split('?')[0] },
  });
  response.once('finish', () => {
    const route = (request.route as { path?: string } | undefined)?.path;
    if (route) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), next);
}

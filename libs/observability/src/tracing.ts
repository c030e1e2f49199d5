// OpenTelemetry traces, on only when an OTLP endpoint is set: off, nothing is registered and every span
// call in the code is the API's no-op. One trace runs from the API request that starts a run through the
// workflow (Temporal's interceptors carry the context in headers) to each activity, model and tool call.
import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

/** Starts exporting spans of this process to `endpoint` (OTLP over HTTP, e.g. http://collector:4318/v1/traces). */
export function startTracing(serviceName: string, endpoint: string): Tracing {
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }), { scheduledDelayMillis: 500 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global: Temporal's interceptors and our spans find the provider, the W3C propagator and the context manager there.
  provider.register();
  return {
    resource,
    spanProcessor,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The tracer our own spans use (model calls, tool calls, API requests); a no-op while tracing is off. */
export function stepwiseTracer(): Tracer {
  return trace.getTracer('stepwise');
}

/** `work` inside a client span (a call out of the worker: a model, a tool) that records a failure as the span's error. */
export function inClientSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return stepwiseTracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

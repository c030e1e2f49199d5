// A local OTLP/HTTP traces receiver (JSON encoding, as @opentelemetry/exporter-trace-otlp-http sends it):
// records every span it is sent, flattened with its service's name, so a spec can check a whole trace.
import { createServer, type Server } from 'node:http';

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const valueOf = (value: AnyValue): unknown =>
  value.arrayValue
    ? value.arrayValue.values.map(valueOf)
    : (value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue)));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
/** Ids arrive as hex, or as base64 from encoders that do not hex them. */
const hex = (id: string | undefined) => (!id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          receiver.record(JSON.parse(body || '{}'));
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/v1/traces`;
  }

  /** Waits until `done` holds for the spans received (exporters batch, so spans come late). */
  async waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 20_000): Promise<ReceivedSpan[]> {
    for (const deadline = Date.now() + timeoutMs; !done(this.spans);) {
      if (Date.now() > deadline) throw new Error(`spans received: ${this.spans.map((span) => `${span.service}:${span.name}`).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.spans;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private record(request: {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: { spans?: (Record<string, string> & { attributes?: KeyValue[] })[] }[];
    }[];
  }) {
    for (const resource of request.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}

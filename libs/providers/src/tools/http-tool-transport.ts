import type { Fetch } from '../net/egress-fetch';
import { DEFAULT_TOOL_TIMEOUT_MS, fetchText, parseBody } from './http-fetch';
import { ToolCallError, toolErrorForStatus, ToolTransport, type ToolCallOptions, type ToolDescriptor } from './tool-transport';

/**
 * User-registered tools: POST the arguments as JSON to the tool's endpoint; the answer (JSON, else text,
 * cut at 256 KiB) is the output. 408, 429, 5xx, timeouts and network failures are retryable, other
 * statuses final.
 */
export class HttpToolTransport extends ToolTransport {
  readonly kind = 'http';

  constructor(
    /** The egress-checked fetch (EgressPolicy.fetch). */
    private readonly fetch: Fetch,
    private readonly defaults: { timeoutMs: number } = { timeoutMs: DEFAULT_TOOL_TIMEOUT_MS },
  ) {
    super();
  }

  async call(tool: ToolDescriptor, args: unknown, options: ToolCallOptions = {}): Promise<unknown> {
    const what = `tool ${tool.name}`;
    if (!tool.endpoint_url || !/^https?:\/\//i.test(tool.endpoint_url)) throw new ToolCallError(`${what} has no http(s) endpoint_url`, false, { kind: 'invalid' });
    const response = await fetchText(
      tool.endpoint_url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(args ?? {}) },
      { timeoutMs: tool.timeout_ms || this.defaults.timeoutMs, signal: options.signal, what, fetch: this.fetch },
    );
    const body = parseBody(response.text, response.headers.get('content-type'), { lenient: true });
    if (response.status >= 400) {
      const { kind, retryable } = toolErrorForStatus(response.status);
      const detail = typeof body === 'string' ? body : JSON.stringify(body);
      throw new ToolCallError(`${what} answered ${response.status}: ${detail}`.slice(0, 2000), retryable, { kind, status: response.status });
    }
    return body;
  }
}

import { fetchWithDeadline, readBody } from './http-fetch';
import { ToolCallError, ToolTransport, type ToolDescriptor } from './tool-transport';

/** User-registered tools: POST the arguments as JSON to the tool's endpoint, the answer is the output. */
export class HttpToolTransport extends ToolTransport {
  readonly kind = 'http';

  async call(tool: ToolDescriptor, args: unknown, options: { signal?: AbortSignal }): Promise<unknown> {
    if (!tool.endpoint_url) throw new ToolCallError(`tool ${tool.name} has no endpoint_url`, false);
    const response = await fetchWithDeadline(
      tool.endpoint_url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args ?? {}) },
      tool.timeout_ms,
      options.signal,
    );
    const { status, body } = await readBody(response);
    if (status >= 400) {
      const retryable = status === 408 || status === 429 || status >= 500;
      throw new ToolCallError(`tool ${tool.name} answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 2000), retryable, status);
    }
    return body;
  }
}

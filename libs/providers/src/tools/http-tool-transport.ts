import { toolErrorDetail } from '@app/contracts';
import type { Fetch } from '../net/egress-fetch';
import { DEFAULT_TOOL_ANSWER_MAX_BYTES, DEFAULT_TOOL_TIMEOUT_MS, fetchText, parseBody } from './http-fetch';
import { ToolCallError, toolErrorForStatus, ToolTransport, type ToolCallOptions, type ToolDescriptor } from './tool-transport';

export interface HttpToolDefaults {
  timeoutMs: number;
  /** TOOL_ANSWER_MAX_BYTES: an answer past it fails the call (TOOL_ANSWER_TOO_LARGE), read no further. */
  answerMaxBytes: number;
}

/**
 * User-registered tools: POST the arguments as JSON to the tool's endpoint; the answer (JSON, else text)
 * is the output, read as a stream up to TOOL_ANSWER_MAX_BYTES: past it the call fails for good
 * (`too_large`). 408, 429, 5xx, timeouts and network failures are retryable, other statuses final; an
 * error's body is quoted shortened and scrubbed of what looks like a secret.
 */
export class HttpToolTransport extends ToolTransport {
  readonly kind = 'http';
  private readonly defaults: HttpToolDefaults;

  constructor(
    /** The egress-checked fetch (EgressPolicy.fetch). */
    private readonly fetch: Fetch,
    defaults: Partial<HttpToolDefaults> = {},
  ) {
    super();
    this.defaults = { timeoutMs: DEFAULT_TOOL_TIMEOUT_MS, answerMaxBytes: DEFAULT_TOOL_ANSWER_MAX_BYTES, ...defaults };
  }

  async call(tool: ToolDescriptor, args: unknown, options: ToolCallOptions = {}): Promise<unknown> {
    const what = `tool ${tool.name}`;
    if (!tool.endpoint_url || !/^https?:\/\//i.test(tool.endpoint_url))
      throw new ToolCallError(`${what} has no http(s) endpoint_url`, false, { kind: 'invalid' });
    const response = await fetchText(
      tool.endpoint_url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(args ?? {}) },
      {
        timeoutMs: tool.timeout_ms || this.defaults.timeoutMs,
        signal: options.signal,
        what,
        fetch: this.fetch,
        maxBytes: this.defaults.answerMaxBytes,
        overMax: 'fail',
      },
    );
    if (response.status >= 400) {
      const { kind, retryable } = toolErrorForStatus(response.status);
      throw new ToolCallError(`${what} answered ${response.status}: ${toolErrorDetail(response.text)}`, retryable, {
        kind,
        status: response.status,
      });
    }
    return parseBody(response.text, response.headers.get('content-type'), { lenient: true });
  }
}

import type { Fetch } from '../net/egress-fetch';
import { httpRequestTool } from './http-request.tool';
import { ToolCallError, ToolTransport, type ToolCallOptions, type ToolDescriptor } from './tool-transport';

/** A built-in tool: a function of the arguments. The timeout is the descriptor's, when it has one. */
export type BuiltinTool = (args: unknown, options: ToolCallOptions & { timeoutMs?: number }) => Promise<unknown>;

/**
 * Tools that run inside the worker, by name. `http_request` is always there; the worker may add those
 * that need its own services (`get_output` reads the database).
 */
export class BuiltinToolTransport extends ToolTransport {
  readonly kind = 'builtin';
  private readonly tools: Record<string, BuiltinTool>;

  /** `fetch`: the egress-checked one (EgressPolicy.fetch) that http_request goes through. */
  constructor(fetch: Fetch, tools: Record<string, BuiltinTool> = {}) {
    super();
    this.tools = { http_request: (args, options) => httpRequestTool(args as never, { ...options, fetch }), ...tools };
  }

  async call(tool: ToolDescriptor, args: unknown, options: ToolCallOptions = {}): Promise<unknown> {
    const run = Object.hasOwn(this.tools, tool.name) ? this.tools[tool.name] : undefined;
    if (!run) throw new ToolCallError(`no built-in tool named ${tool.name}`, false, { kind: 'invalid' });
    return run(args, { signal: options.signal, ...(tool.timeout_ms ? { timeoutMs: tool.timeout_ms } : {}) });
  }
}

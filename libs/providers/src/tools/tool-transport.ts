/** A callable tool as the worker sees it, whatever reaches it (HTTP today, MCP later). */
export interface ToolDescriptor {
  name: string;
  transport: string;
  endpoint_url?: string | null;
  timeout_ms: number;
}

export class ToolCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ToolCallError';
  }
}

/** One way of reaching tools. A tool's `transport` names the one that calls it. */
export abstract class ToolTransport {
  abstract readonly kind: string;
  abstract call(tool: ToolDescriptor, args: unknown, options: { signal?: AbortSignal }): Promise<unknown>;
}

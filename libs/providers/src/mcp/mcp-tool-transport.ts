import { toolErrorDetail } from '@app/contracts';
import { ToolCallError, ToolTransport, type ToolCallOptions, type ToolDescriptor } from '../tools/tool-transport';
import type { McpClientPool } from './mcp-client-pool';
import { mcpAnswer, mcpErrorText } from './mcp-result';

/**
 * Tools of MCP servers: `tools/call` on the server's pooled connection. The result's content is the
 * output; a result the tool marked `isError` is a final ToolCallError (`tool_error`), so it goes back to
 * the model as the tool's answer rather than failing the activity (its text shortened and scrubbed).
 * Transport failures are classified retryable or final (mcp-errors.ts).
 */
export class McpToolTransport extends ToolTransport {
  readonly kind = 'mcp';

  constructor(private readonly pool: McpClientPool) {
    super();
  }

  async call(tool: ToolDescriptor, args: unknown, options: ToolCallOptions = {}): Promise<unknown> {
    if (!tool.mcp) throw new ToolCallError(`tool ${tool.name} names no MCP server`, false, { kind: 'invalid' });
    const result = await this.pool.callTool(tool.mcp.connection, tool.mcp.tool, args, {
      signal: options.signal,
      timeoutMs: tool.timeout_ms ?? undefined,
    });
    if (result.isError)
      throw new ToolCallError(`tool ${tool.name} reported an error: ${toolErrorDetail(mcpErrorText(result))}`, false, {
        kind: 'tool_error',
      });
    return mcpAnswer(result);
  }
}

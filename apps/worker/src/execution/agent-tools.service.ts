import { Injectable } from '@nestjs/common';
import { END_TOOL_NAME, type McpConnection, type ToolSpec } from '@app/contracts';
import {
  BUILTIN_TOOLS,
  END_TOOL,
  modelToolName,
  parseMcpToolName,
  qualifiedMcpToolName,
  workflowToolUuid,
  type McpToolName,
} from '@app/domain';
import { McpServerRepository, McpToolCatalog, ToolRepository } from '@app/persistence';
import { DEFAULT_TOOL_TIMEOUT_MS, ToolCallError, type ToolDescriptor } from '@app/providers';
import { StepError } from './step-error';

/** `spec` is what the model is offered (an MCP tool under its model-safe name); `record` is how the worker calls it. */
export type ResolvedTool = { spec: ToolSpec; builtin: true } | { spec: ToolSpec; builtin: false; record: ToolDescriptor };

/** How long the built-in http_request may take. */
export const BUILTIN_TIMEOUT_MS = 30_000;
/** The built-ins answered in the worker itself, reaching nothing outside. */
const IN_WORKER_BUILTINS = new Set(['get_output', END_TOOL_NAME]);

/** How long one call of `tool` may take: 0 for a built-in answered in the worker. */
export function callTimeoutMs(tool: ResolvedTool): number {
  if (!tool.builtin) return tool.record.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS;
  return IN_WORKER_BUILTINS.has(tool.spec.name) ? 0 : BUILTIN_TIMEOUT_MS;
}

/** The tools (as the model names them) whose calls may take at most `maxTimeoutMs`: short enough for a local activity. */
export function shortTools(tools: ResolvedTool[], maxTimeoutMs: number): string[] {
  return tools.filter((tool) => callTimeoutMs(tool) <= maxTimeoutMs).map((tool) => tool.spec.name);
}

const mcpDescriptor = (name: McpToolName, connection: McpConnection, spec: Omit<ToolSpec, 'name'>): ToolDescriptor => ({
  ...spec,
  name: qualifiedMcpToolName(name),
  transport: 'mcp',
  timeout_ms: connection.timeout_ms,
  mcp: { connection, tool: name.tool },
});

/**
 * The tools an agent may call: get_output always, `end` in a conversation, the other built-ins and
 * registered tools by name, and MCP tools (`<server>.<tool>`) listed live from their servers.
 */
@Injectable()
export class AgentToolsService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly mcpServers: McpServerRepository,
    private readonly mcpTools: McpToolCatalog,
  ) {}

  /** Every tool of the step with its spec, workflow tools excepted (WorkflowToolService's): what an agent is offered when it starts. */
  async resolve(userId: string, stepTools: string[], conversational = false): Promise<ResolvedTool[]> {
    const names = stepTools.filter((name) => !workflowToolUuid(name));
    const [local, mcp] = await Promise.all([
      this.resolveLocal(
        userId,
        names.filter((name) => !parseMcpToolName(name)),
        conversational,
      ),
      this.resolveMcp(userId, names),
    ]);
    return [...local, ...mcp];
  }

  /** The tool the model called by `offeredName`, without listing MCP servers again: null when the step has none of that name. */
  find(userId: string, stepTools: string[], conversational: boolean, offeredName: string): Promise<ResolvedTool | null> {
    return this.findEach(userId, stepTools, conversational, [offeredName])(offeredName);
  }

  /**
   * `find` for the tools of `offeredNames`, their reads started now (one for the registered tools, one for their MCP
   * servers), so a turn has them when its model answers; each name's lookup fails or not as `find` would.
   */
  findEach(
    userId: string,
    stepTools: string[],
    conversational: boolean,
    offeredNames: string[],
  ): (offeredName: string) => Promise<ResolvedTool | null> {
    const names = stepTools.filter((name) => !workflowToolUuid(name));
    const mcpOf = (offered: string) => names.map(parseMcpToolName).find((name) => name && modelToolName(name) === offered) ?? null;
    const readLocal = () =>
      this.resolveLocal(
        userId,
        names.filter((name) => !parseMcpToolName(name)),
        conversational,
      );
    const readServers = (servers: string[]) => this.mcpServers.connections(userId, servers);
    const local = offeredNames.some((offered) => !mcpOf(offered)) ? readLocal() : null;
    const serverNames = [...new Set(offeredNames.flatMap((offered) => mcpOf(offered)?.server ?? []))];
    const servers = serverNames.length ? readServers(serverNames) : null;
    // A failed read is the failure of the lookups that wait on it, not of the turn before them.
    for (const read of [local, servers]) read?.catch(() => undefined);
    return async (offered) => {
      const mcpName = mcpOf(offered);
      if (!mcpName) return (await (local ?? readLocal())).find((tool) => tool.spec.name === offered) ?? null;
      const read = serverNames.includes(mcpName.server) && servers ? servers : readServers([mcpName.server]);
      const connection = (await read).find((server) => server.name === mcpName.server);
      return connection
        ? {
            spec: { name: offered, description: '', parameters: {} },
            builtin: false,
            record: mcpDescriptor(mcpName, connection, { description: '', parameters: {} }),
          }
        : null;
    };
  }

  private async resolveLocal(userId: string, names: string[], conversational: boolean): Promise<ResolvedTool[]> {
    const builtins = [
      ...BUILTIN_TOOLS.filter((tool) => tool.name === 'get_output' || names.includes(tool.name)),
      ...(conversational || names.includes(END_TOOL.name) ? [END_TOOL] : []),
    ];
    const wanted = names.filter((name) => !builtins.some((tool) => tool.name === name));
    const registered = await this.tools.findByNames(userId, wanted);
    const missing = wanted.filter((name) => !registered.some((tool) => tool.name === name));
    if (missing.length) throw new StepError('UnknownTool', `unknown tool(s): ${missing.join(', ')}; register them with POST /tools`);
    return [
      ...builtins.map((spec) => ({ spec, builtin: true as const })),
      ...registered.map((record) => ({
        spec: { name: record.name, description: record.description, parameters: record.parameters },
        builtin: false as const,
        record,
      })),
    ];
  }

  /** An unreachable server is retried (it may come back); a server or tool that does not exist fails the step. */
  private async resolveMcp(userId: string, names: string[]): Promise<ResolvedTool[]> {
    const wanted = names.flatMap((name) => parseMcpToolName(name) ?? []);
    if (!wanted.length) return [];
    const listed = await this.mcpTools.listEach(await this.mcpServers.connections(userId, [...new Set(wanted.map((name) => name.server))]));
    return wanted.map((name) => {
      const entry = listed.find((candidate) => candidate.server.name === name.server);
      if (!entry)
        throw new StepError(
          'UnknownTool',
          `unknown MCP server ${name.server} (for ${qualifiedMcpToolName(name)}); register it with POST /mcp-servers`,
        );
      if ('error' in entry) throw new ToolCallError(entry.error.message, true, { kind: 'network' });
      const tool = entry.tools.find((candidate) => candidate.name === name.tool);
      if (!tool) throw new StepError('UnknownTool', `MCP server ${name.server} has no tool ${name.tool}`);
      const spec = { description: tool.description, parameters: tool.input_schema };
      return { spec: { name: modelToolName(name), ...spec }, builtin: false as const, record: mcpDescriptor(name, entry.server, spec) };
    });
  }
}

import type { McpConnection, McpToolInfo, McpToolSource, StepDefinition, ToolSpec } from '@app/contracts';
import { DomainError, ErrorCode, parseMcpToolName, qualifiedMcpToolName } from '@app/domain';
import type { McpServerRepository } from './mcp-server.repository';

/** A server's tools, or why they could not be listed. */
export type ServerTools = { server: McpConnection; tools: McpToolInfo[] } | { server: McpConnection; error: DomainError };

/**
 * The tools of a user's MCP servers, listed live: for discovery, for tool manifests (save and run start)
 * and for the specs an agent is offered. A server that cannot be reached is a coded error naming it.
 */
export class McpToolCatalog {
  constructor(
    private readonly servers: McpServerRepository,
    private readonly source: McpToolSource,
  ) {}

  /** One server's tools; MCP_SERVER_UNAVAILABLE (naming it) when it cannot be reached or fails. */
  async list(server: McpConnection): Promise<McpToolInfo[]> {
    try {
      return await this.source.listTools(server);
    } catch (error) {
      throw new DomainError(ErrorCode.McpServerUnavailable, `MCP server ${server.name}: ${(error as Error).message}`, {
        server: server.name,
        server_uuid: server.uuid,
      });
    }
  }

  /** Every named server's tools, each listed on its own: one failing does not hide the others. */
  async listEach(servers: McpConnection[]): Promise<ServerTools[]> {
    return Promise.all(
      servers.map((server) =>
        this.list(server).then(
          (tools) => ({ server, tools }),
          (error: DomainError) => ({ server, error }),
        ),
      ),
    );
  }

  /**
   * The specs of the `<server>.<tool>` names among `names` (name: the step's name for it), from servers
   * listed now. Names whose server is unknown, unreachable or does not list the tool are left out.
   */
  async specsOf(userId: string, names: readonly string[]): Promise<ToolSpec[]> {
    const wanted = names.flatMap((name) => parseMcpToolName(name) ?? []);
    if (!wanted.length) return [];
    const listed = await this.listEach(await this.servers.connections(userId, [...new Set(wanted.map((name) => name.server))]));
    return wanted.flatMap((name) => {
      const entry = listed.find((candidate) => candidate.server.name === name.server);
      const tool = entry && 'tools' in entry ? entry.tools.find((candidate) => candidate.name === name.tool) : undefined;
      return tool ? [{ name: qualifiedMcpToolName(name), description: tool.description, parameters: tool.input_schema }] : [];
    });
  }

  /** At save: a step naming a server the user has not registered is refused (UNKNOWN_MCP_SERVER, its field). */
  async assertServersKnown(userId: string, steps: readonly StepDefinition[]): Promise<void> {
    const named = steps.flatMap((step, i) =>
      step.type === 'custom_agent'
        ? step.tools.flatMap((tool, j) =>
            parseMcpToolName(tool) ? [{ server: parseMcpToolName(tool)!.server, tool, field: `steps[${i}].tools[${j}]` }] : [],
          )
        : [],
    );
    if (!named.length) return;
    const known = new Set(
      (await this.servers.connections(userId, [...new Set(named.map((entry) => entry.server))])).map((server) => server.name),
    );
    const unknown = named.find((entry) => !known.has(entry.server));
    if (unknown) {
      throw new DomainError(
        ErrorCode.UnknownMcpServer,
        `${unknown.field}: ${unknown.tool} names MCP server ${unknown.server}, which is not registered (POST /mcp-servers)`,
        { field: unknown.field, server: unknown.server },
      );
    }
  }
}

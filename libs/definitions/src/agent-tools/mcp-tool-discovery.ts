import { Injectable } from '@nestjs/common';
import type { McpConnection, McpToolInfo } from '@app/contracts';
import { modelToolName, notFound, qualifiedMcpToolName } from '@app/domain';
import { McpServerRepository, McpToolCatalog } from '@app/persistence';

/** A server's tool as discovery shows it: the name a step uses, the one the model is offered, and what the server lists. */
export interface DiscoveredTool {
  name: string;
  server: string;
  server_uuid: string;
  tool: string;
  model_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}

const discovered = (server: McpConnection, tool: McpToolInfo): DiscoveredTool => {
  const name = { server: server.name, tool: tool.name };
  return {
    name: qualifiedMcpToolName(name),
    server: server.name,
    server_uuid: server.uuid,
    tool: tool.name,
    model_name: modelToolName(name),
    description: tool.description,
    input_schema: tool.input_schema,
    annotations: tool.annotations,
  };
};

/** Live discovery of the tools of the user's MCP servers (GET /mcp-servers/{uuid}/tools, /mcp-tools, list_tools). */
@Injectable()
export class McpToolDiscovery {
  constructor(
    private readonly servers: McpServerRepository,
    private readonly catalog: McpToolCatalog,
  ) {}

  /** One server's tools, listed now; MCP_SERVER_UNAVAILABLE (502) naming it when it cannot answer. */
  async tools(userId: string, uuid: string): Promise<DiscoveredTool[]> {
    const server = await this.servers.connection(userId, uuid);
    if (!server) throw notFound('MCP server', uuid);
    return (await this.catalog.list(server)).map((tool) => discovered(server, tool));
  }

  /** Every server's tools; a server that cannot answer is listed in `errors` instead of failing the rest. */
  async allTools(
    userId: string,
  ): Promise<{ items: DiscoveredTool[]; errors: { server: string; server_uuid: string; code: string; message: string }[] }> {
    const names = (await this.servers.list(userId)).map((server) => server.name);
    const listed = await this.catalog.listEach(await this.servers.connections(userId, names));
    return {
      items: listed.flatMap((entry) => ('tools' in entry ? entry.tools.map((tool) => discovered(entry.server, tool)) : [])),
      errors: listed.flatMap((entry) =>
        'error' in entry
          ? [{ server: entry.server.name, server_uuid: entry.server.uuid, code: entry.error.code, message: entry.error.message }]
          : [],
      ),
    };
  }
}

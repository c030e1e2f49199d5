import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { McpConnection, McpToolInfo } from '@app/contracts';
import { DomainError, ErrorCode, modelToolName, notFound, parseMcpServerInput, parseMcpServerPatch, qualifiedMcpToolName, type McpServerInput } from '@app/domain';
import { McpServerRepository, McpToolCatalog, type McpServerRecord } from '@app/persistence';
import { McpClientPool } from '@app/providers';
import { EgressGuard } from '../common/egress-guard';

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
  return { name: qualifiedMcpToolName(name), server: server.name, server_uuid: server.uuid, tool: tool.name, model_name: modelToolName(name), description: tool.description, input_schema: tool.input_schema, annotations: tool.annotations };
};

/** The user's MCP servers: registration (secrets sealed, never returned) and live discovery of their tools. */
@Injectable()
export class McpServersService {
  constructor(
    private readonly servers: McpServerRepository,
    private readonly catalog: McpToolCatalog,
    private readonly egress: EgressGuard,
    private readonly config: AppConfig,
    private readonly pool: McpClientPool,
  ) {}

  async create(userId: string, body: unknown): Promise<McpServerRecord> {
    const input = await this.checked(parseMcpServerInput(body, this.config.mcp.stdioAllowed));
    return (await this.servers.create(userId, input)) ?? this.nameTaken(input);
  }

  async update(userId: string, uuid: string, body: unknown): Promise<McpServerRecord> {
    const current = (await this.servers.inputOf(userId, uuid)) ?? this.missing(uuid);
    const input = await this.checked(parseMcpServerPatch(body, current, this.config.mcp.stdioAllowed));
    const updated = await this.servers.update(userId, uuid, input);
    if (updated === 'conflict') return this.nameTaken(input);
    return updated ?? this.missing(uuid);
  }

  list(userId: string): Promise<McpServerRecord[]> {
    return this.servers.list(userId);
  }

  async get(userId: string, uuid: string): Promise<McpServerRecord> {
    return (await this.servers.find(userId, uuid)) ?? this.missing(uuid);
  }

  /** The API's own connection to it closes too; a worker's closes when it next fails or the worker stops. */
  async remove(userId: string, uuid: string): Promise<void> {
    if (!(await this.servers.delete(userId, uuid))) this.missing(uuid);
    await this.pool.forget(uuid);
  }

  /** One server's tools, listed now; MCP_SERVER_UNAVAILABLE (502) naming it when it cannot answer. */
  async tools(userId: string, uuid: string): Promise<DiscoveredTool[]> {
    const server = (await this.servers.connection(userId, uuid)) ?? this.missing(uuid);
    return (await this.catalog.list(server)).map((tool) => discovered(server, tool));
  }

  /** Every server's tools; a server that cannot answer is listed in `errors` instead of failing the rest. */
  async allTools(userId: string): Promise<{ items: DiscoveredTool[]; errors: { server: string; server_uuid: string; code: string; message: string }[] }> {
    const names = (await this.servers.list(userId)).map((server) => server.name);
    const listed = await this.catalog.listEach(await this.servers.connections(userId, names));
    return {
      items: listed.flatMap((entry) => ('tools' in entry ? entry.tools.map((tool) => discovered(entry.server, tool)) : [])),
      errors: listed.flatMap((entry) => ('error' in entry ? [{ server: entry.server.name, server_uuid: entry.server.uuid, code: entry.error.code, message: entry.error.message }] : [])),
    };
  }

  /** A URL that can only reach a denied address is refused at save (EGRESS_DENIED), like a tool's endpoint_url. */
  private async checked(input: McpServerInput): Promise<McpServerInput> {
    await this.egress.assertReachable(input.url, 'url');
    return input;
  }

  private nameTaken(input: McpServerInput): never {
    throw new DomainError(ErrorCode.Conflict, `An MCP server named ${input.name} already exists`, { field: 'name' });
  }

  private missing(uuid: string): never {
    throw notFound('MCP server', uuid);
  }
}

import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { EgressGuard } from '@app/definitions';
import { DomainError, ErrorCode, notFound, parseMcpServerInput, parseMcpServerPatch, type McpServerInput } from '@app/domain';
import { McpServerRepository, type McpServerRecord } from '@app/persistence';
import { McpClientPool } from '@app/providers';

/** The user's MCP servers: registration (secrets sealed, never returned); McpToolDiscovery lists their tools. */
@Injectable()
export class McpServersService {
  constructor(
    private readonly servers: McpServerRepository,
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

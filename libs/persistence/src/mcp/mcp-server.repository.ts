import { randomUUID } from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import type { McpConnection, McpTransportKind } from '@app/contracts';
import type { McpServerInput } from '@app/domain';
import type { SecretBox } from '@app/security';
import { McpServerEntity } from './mcp-server.entity';
import { isDuplicateKey } from '../rolled-back';

/** A registered server as the API shows it: header and env names, never their values. */
export interface McpServerRecord {
  uuid: string;
  user_id: string;
  name: string;
  transport: McpTransportKind;
  url: string | null;
  header_names: string[];
  command: string | null;
  args: string[];
  env_names: string[];
  timeout_ms: number;
  created_at: Date;
  updated_at: Date;
}

/** The user's MCP servers; headers and env are sealed on the way in and revealed only for a connection. */
export abstract class McpServerRepository {
  /** Null when the user already has a server of that name. */
  abstract create(userId: string, input: McpServerInput): Promise<McpServerRecord | null>;
  /** Null when there is no such server; `conflict` when the new name is taken. */
  abstract update(userId: string, uuid: string, input: McpServerInput): Promise<McpServerRecord | null | 'conflict'>;
  abstract list(userId: string): Promise<McpServerRecord[]>;
  abstract find(userId: string, uuid: string): Promise<McpServerRecord | null>;
  abstract delete(userId: string, uuid: string): Promise<boolean>;
  /** The input the server was saved from, secrets revealed: what a patch is merged over. */
  abstract inputOf(userId: string, uuid: string): Promise<McpServerInput | null>;
  /** How to reach the named servers (those that exist), secrets revealed. */
  abstract connections(userId: string, names: string[]): Promise<McpConnection[]>;
  abstract connection(userId: string, uuid: string): Promise<McpConnection | null>;
}

export class TypeormMcpServerRepository extends McpServerRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: SecretBox,
  ) {
    super();
  }

  private get servers() {
    return this.dataSource.getRepository(McpServerEntity);
  }

  async create(userId: string, input: McpServerInput): Promise<McpServerRecord | null> {
    const uuid = randomUUID();
    try {
      await this.servers.insert({ ...this.columnsOf(input), uuid, user_id: userId });
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
    return this.find(userId, uuid);
  }

  async update(userId: string, uuid: string, input: McpServerInput): Promise<McpServerRecord | null | 'conflict'> {
    try {
      const { affected } = await this.servers.update({ user_id: userId, uuid }, this.columnsOf(input));
      if (!affected) return null;
    } catch (error) {
      if (isDuplicateKey(error)) return 'conflict';
      throw error;
    }
    return this.find(userId, uuid);
  }

  async list(userId: string): Promise<McpServerRecord[]> {
    return (await this.servers.find({ where: { user_id: userId }, order: { name: 'ASC' } })).map((entity) => this.recordOf(entity));
  }

  async find(userId: string, uuid: string): Promise<McpServerRecord | null> {
    const entity = await this.servers.findOneBy({ user_id: userId, uuid });
    return entity && this.recordOf(entity);
  }

  async delete(userId: string, uuid: string): Promise<boolean> {
    return ((await this.servers.delete({ user_id: userId, uuid })).affected ?? 0) > 0;
  }

  async inputOf(userId: string, uuid: string): Promise<McpServerInput | null> {
    const entity = await this.servers.findOneBy({ user_id: userId, uuid });
    if (!entity) return null;
    const { uuid: _uuid, ...input } = this.connectionOf(entity);
    return { url: null, headers: {}, command: null, args: [], env: {}, ...input };
  }

  async connections(userId: string, names: string[]): Promise<McpConnection[]> {
    if (!names.length) return [];
    return (await this.servers.findBy({ user_id: userId, name: In(names) })).map((entity) => this.connectionOf(entity));
  }

  async connection(userId: string, uuid: string): Promise<McpConnection | null> {
    const entity = await this.servers.findOneBy({ user_id: userId, uuid });
    return entity && this.connectionOf(entity);
  }

  private columnsOf(input: McpServerInput): Partial<McpServerEntity> {
    const sealed = (values: Record<string, string>) => (Object.keys(values).length ? this.secrets.seal(JSON.stringify(values)) : null);
    return {
      name: input.name,
      transport: input.transport,
      url: input.url,
      sealed_headers: sealed(input.headers),
      command: input.command,
      args: input.args,
      sealed_env: sealed(input.env),
      timeout_ms: input.timeout_ms,
    };
  }

  private revealed(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.secrets.reveal(sealed)) as Record<string, string>) : {};
  }

  private connectionOf(entity: McpServerEntity): McpConnection {
    const base = { uuid: entity.uuid, name: entity.name, timeout_ms: entity.timeout_ms };
    return entity.transport === 'stdio'
      ? { ...base, transport: 'stdio', command: entity.command ?? '', args: entity.args, env: this.revealed(entity.sealed_env) }
      : { ...base, transport: 'streamable_http', url: entity.url ?? '', headers: this.revealed(entity.sealed_headers) };
  }

  /** Names only: which headers and variables are set, never what they hold. */
  private recordOf(entity: McpServerEntity): McpServerRecord {
    const { sealed_headers, sealed_env, ...rest } = entity;
    return {
      ...rest,
      transport: entity.transport as McpTransportKind,
      header_names: Object.keys(this.revealed(sealed_headers)).sort(),
      env_names: Object.keys(this.revealed(sealed_env)).sort(),
    };
  }
}

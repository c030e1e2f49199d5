import { randomUUID } from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import { ToolEntity } from './tool.entity';
import { isDuplicateKey } from '../rolled-back';

export interface ToolRecord {
  uuid: string;
  user_id: string;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** How the worker reaches the tool: `http` today; MCP servers will be another transport. */
  transport: string;
  endpoint_url: string | null;
  timeout_ms: number;
  /** Calling it again changes nothing anywhere: a replay may call it anew when the record has no identical call. */
  side_effect_free: boolean;
  created_at: Date;
}

export type NewTool = Omit<ToolRecord, 'uuid' | 'created_at'>;

/** The user-registered tools agents may call, per user. */
export abstract class ToolRepository {
  /** Null when the user already has a tool of that name. */
  abstract create(tool: NewTool): Promise<ToolRecord | null>;
  abstract list(userId: string): Promise<ToolRecord[]>;
  abstract find(userId: string, uuid: string): Promise<ToolRecord | null>;
  abstract findByNames(userId: string, names: string[]): Promise<ToolRecord[]>;
  abstract delete(userId: string, uuid: string): Promise<boolean>;
}

export class TypeormToolRepository extends ToolRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  private get tools() {
    return this.dataSource.getRepository(ToolEntity);
  }

  async create(tool: NewTool): Promise<ToolRecord | null> {
    const uuid = randomUUID();
    try {
      await this.tools.insert({ ...tool, uuid } as never);
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
    return this.find(tool.user_id, uuid);
  }

  list(userId: string): Promise<ToolRecord[]> {
    return this.tools.find({ where: { user_id: userId }, order: { name: 'ASC' } });
  }

  find(userId: string, uuid: string): Promise<ToolRecord | null> {
    return this.tools.findOneBy({ user_id: userId, uuid });
  }

  findByNames(userId: string, names: string[]): Promise<ToolRecord[]> {
    return names.length ? this.tools.findBy({ user_id: userId, name: In(names) }) : Promise.resolve([]);
  }

  async delete(userId: string, uuid: string): Promise<boolean> {
    return ((await this.tools.delete({ user_id: userId, uuid })).affected ?? 0) > 0;
  }
}

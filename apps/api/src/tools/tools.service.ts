import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { EgressGuard } from '@app/definitions';
import { DomainError, ErrorCode, notFound, parseToolInput } from '@app/domain';
import { ToolRepository, type ToolRecord } from '@app/persistence';

@Injectable()
export class ToolsService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly egress: EgressGuard,
    private readonly config: AppConfig,
  ) {}

  async create(userId: string, body: unknown): Promise<ToolRecord> {
    const input = parseToolInput(body, this.config.limits.schema);
    await this.egress.assertReachable(input.endpoint_url, 'endpoint_url');
    const created = await this.tools.create({ ...input, user_id: userId });
    if (!created) throw new DomainError(ErrorCode.Conflict, `A tool named ${input.name} already exists`, { field: 'name' });
    return created;
  }

  list(userId: string): Promise<ToolRecord[]> {
    return this.tools.list(userId);
  }

  async get(userId: string, uuid: string): Promise<ToolRecord> {
    return (await this.tools.find(userId, uuid)) ?? Promise.reject(notFound('Tool', uuid));
  }

  async remove(userId: string, uuid: string): Promise<void> {
    if (!(await this.tools.delete(userId, uuid))) throw notFound('Tool', uuid);
  }
}

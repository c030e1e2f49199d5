import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { TriggerDefinition } from '@app/contracts';
import { DefinitionStore, toDetailsView, type WorkflowDetailsView } from '@app/definitions';
import { DomainError, ErrorCode, isJsonObject, notFound, parseTrigger } from '@app/domain';
import { TriggerHookRepository } from '@app/persistence';
import type { Pagination } from '../common/pagination';
import { SecretBox } from '@app/security';
import { newWebhookSecret } from '../hooks/webhook-auth';

@Injectable()
export class TriggersService {
  constructor(
    private readonly store: DefinitionStore,
    private readonly hooks: TriggerHookRepository,
    private readonly secrets: SecretBox,
  ) {}

  /** A new secret for a webhook trigger, shown this once; the previous one stops working at once. */
  async rotateSecret(userId: string, triggerUuid: string) {
    const trigger = await this.get(userId, triggerUuid);
    if (trigger.type !== 'webhook') {
      throw new DomainError(
        ErrorCode.ValidationFailed,
        `Trigger ${triggerUuid} is a ${trigger.type} trigger: only webhook triggers have secrets`,
        { field: 'type' },
      );
    }
    const secret = newWebhookSecret();
    // Sealed at rest: the database alone does not give it away.
    await this.hooks.setSecret(triggerUuid, this.secrets.seal(secret));
    return { trigger_uuid: triggerUuid, secret, hook_path: `/api/v1/hooks/${triggerUuid}` };
  }

  /** Deliveries the webhook received, matched or ignored, newest first. */
  async events(userId: string, triggerUuid: string, page: Pagination) {
    await this.store.workflowOfTrigger(userId, triggerUuid);
    return this.hooks.listEvents(userId, triggerUuid, page);
  }

  /** Sets the workflow's one trigger, keeping its uuid when it already has one. */
  async put(userId: string, workflowUuid: string, body: unknown): Promise<WorkflowDetailsView> {
    const parsed = parseTrigger(body, '', randomUUID);
    const current = await this.store.get(userId, workflowUuid);
    const uuid = current.trigger?.uuid ?? parsed.uuid;
    if (!current.trigger) await this.store.assertUuidsFree(userId, [{ uuid, field: 'uuid' }]);
    const record = await this.store.edit(userId, workflowUuid, (definition) => ({ ...definition, trigger: { ...parsed, uuid } }));
    return toDetailsView(record);
  }

  async remove(userId: string, workflowUuid: string): Promise<WorkflowDetailsView> {
    const record = await this.store.edit(userId, workflowUuid, (definition) => {
      if (!definition.trigger) throw notFound('Trigger of workflow', workflowUuid);
      return { ...definition, trigger: null };
    });
    return toDetailsView(record);
  }

  async get(userId: string, triggerUuid: string): Promise<TriggerDefinition & { workflow_uuid: string }> {
    const workflowUuid = await this.store.workflowOfTrigger(userId, triggerUuid);
    const { trigger } = await this.store.get(userId, workflowUuid);
    return { ...trigger!, workflow_uuid: workflowUuid };
  }

  async update(userId: string, triggerUuid: string, body: unknown): Promise<TriggerDefinition & { workflow_uuid: string }> {
    if (isJsonObject(body) && 'uuid' in body) {
      throw new DomainError(ErrorCode.ValidationFailed, 'uuid of a trigger cannot change', { field: 'uuid' });
    }
    const workflowUuid = await this.store.workflowOfTrigger(userId, triggerUuid);
    const record = await this.store.edit(userId, workflowUuid, (definition) => ({
      ...definition,
      trigger: parseTrigger({ ...definition.trigger, ...(body as object) }, '', randomUUID),
    }));
    return { ...record.trigger!, workflow_uuid: workflowUuid };
  }
}

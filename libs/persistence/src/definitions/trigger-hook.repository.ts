import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { TriggerDefinition } from '@app/contracts';
import { TriggerEntity, TriggerEventEntity, TriggerSecretEntity } from './definition.entities';
import { toTrigger } from './workflow.mapper';
import { pageOf, type Page, type PageRequest } from '../pages';
import { isDuplicateKey } from '../rolled-back';

/** What a webhook delivery needs: the trigger, whose it is, and its secret (null until one is made). */
export interface HookTarget {
  trigger: TriggerDefinition;
  workflow_uuid: string;
  user_id: string;
  secret: string | null;
}

export interface TriggerEventRecord {
  uuid: string;
  trigger_uuid: string;
  delivery_key: string | null;
  matched: boolean;
  run_uuid: string | null;
  body: unknown;
  received_at: Date;
}

/** Webhook deliveries: looked up by trigger uuid alone (the caller proves itself with the secret). */
export abstract class TriggerHookRepository {
  abstract findTarget(triggerUuid: string): Promise<HookTarget | null>;
  /** `secret` as stored: sealed by the caller. */
  abstract setSecret(triggerUuid: string, secret: string): Promise<void>;
  /** Remembers an accepted signature; false when it was seen already (a replayed delivery). Forgets those older than `forgetAfterSeconds`. */
  abstract rememberSignature(triggerUuid: string, signature: string, forgetAfterSeconds: number): Promise<boolean>;
  abstract recordEvent(event: Omit<TriggerEventRecord, 'uuid' | 'received_at'> & { user_id: string }): Promise<string>;
  abstract listEvents(userId: string, triggerUuid: string, page: PageRequest): Promise<Page<TriggerEventRecord>>;
}

export class TypeormTriggerHookRepository extends TriggerHookRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async findTarget(triggerUuid: string): Promise<HookTarget | null> {
    const trigger = await this.dataSource.manager.findOneBy(TriggerEntity, { uuid: triggerUuid });
    if (!trigger) return null;
    const secret = await this.dataSource.manager.findOneBy(TriggerSecretEntity, { trigger_uuid: triggerUuid });
    return { trigger: toTrigger(trigger), workflow_uuid: trigger.workflow_uuid, user_id: trigger.user_id, secret: secret?.secret ?? null };
  }

  async setSecret(triggerUuid: string, secret: string): Promise<void> {
    await this.dataSource.manager.upsert(TriggerSecretEntity, { trigger_uuid: triggerUuid, secret }, ['trigger_uuid']);
  }

  async rememberSignature(triggerUuid: string, signature: string, forgetAfterSeconds: number): Promise<boolean> {
    await this.dataSource.query('DELETE FROM webhook_signatures WHERE received_at < NOW(3) - INTERVAL ? SECOND LIMIT 100', [forgetAfterSeconds]);
    try {
      await this.dataSource.query('INSERT INTO webhook_signatures (trigger_uuid, signature) VALUES (?, ?)', [triggerUuid, signature]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async recordEvent(event: Omit<TriggerEventRecord, 'uuid' | 'received_at'> & { user_id: string }): Promise<string> {
    const uuid = randomUUID();
    await this.dataSource.manager.insert(TriggerEventEntity, { ...event, uuid, body: event.body as never });
    return uuid;
  }

  async listEvents(userId: string, triggerUuid: string, request: PageRequest): Promise<Page<TriggerEventRecord>> {
    const query = this.dataSource.getRepository(TriggerEventEntity).createQueryBuilder('row').where('row.user_id = :userId AND row.trigger_uuid = :triggerUuid', { userId, triggerUuid });
    const page = await pageOf(query, 'received_at', request);
    return { ...page, items: page.items.map(({ user_id: _u, ...event }) => event) };
  }
}

import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { TriggerDefinition } from '@app/contracts';
import { DomainError, ErrorCode, notFound } from '@app/domain';
import { TriggerEntity, TriggerEventEntity, TriggerSecretEntity } from './definition.entities';
import { toTrigger } from './workflow.mapper';
import { pageOf, type Page, type PageRequest } from '../pages';
import { isDuplicateKey, isMissingParent } from '../rolled-back';

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

export type NewTriggerEvent = Omit<TriggerEventRecord, 'uuid' | 'received_at' | 'body'> & { user_id: string; body_json: string };

/** Webhook deliveries: looked up by trigger uuid alone (the caller proves itself with the secret). */
export abstract class TriggerHookRepository {
  abstract findTarget(triggerUuid: string): Promise<HookTarget | null>;
  /** `secret` as stored: sealed by the caller. */
  abstract setSecret(triggerUuid: string, secret: string): Promise<void>;
  /**
   * Remembers an accepted signature with the delivery key it came with. False when it was accepted before
   * for another delivery: without a key, or with another key (a replay); true again for the same key (the
   * sender repeating that delivery, answered as the first was). Forgets those older than `forgetAfterSeconds`.
   */
  abstract rememberSignature(
    triggerUuid: string,
    signature: string,
    deliveryKey: string | null,
    forgetAfterSeconds: number,
  ): Promise<boolean>;
  /** `body_json`: the body as JSON text, stored as it is (the webhook's bytes, checked but not parsed on the API's loop). */
  abstract recordEvent(event: NewTriggerEvent): Promise<string>;
  abstract listEvents(userId: string, triggerUuid: string, page: PageRequest): Promise<Page<TriggerEventRecord>>;
}

export class TypeormTriggerHookRepository extends TriggerHookRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async findTarget(triggerUuid: string): Promise<HookTarget | null> {
    const trigger = await this.dataSource.manager.findOneBy(TriggerEntity, { uuid: triggerUuid });
    // Exactly this uuid: utf8mb4_bin still ignores trailing spaces, and a delivery's run uuid is derived from it.
    if (!trigger || trigger.uuid !== triggerUuid) return null;
    const secret = await this.dataSource.manager.findOneBy(TriggerSecretEntity, { trigger_uuid: triggerUuid });
    return { trigger: toTrigger(trigger), workflow_uuid: trigger.workflow_uuid, user_id: trigger.user_id, secret: secret?.secret ?? null };
  }

  async setSecret(triggerUuid: string, secret: string): Promise<void> {
    await this.dataSource.manager
      .upsert(TriggerSecretEntity, { trigger_uuid: triggerUuid, secret }, ['trigger_uuid'])
      .catch((error: unknown) => {
        // Deleted since the caller found it: a secret needs its trigger (foreign key).
        throw isMissingParent(error) ? notFound('Trigger', triggerUuid) : error;
      });
  }

  async rememberSignature(
    triggerUuid: string,
    signature: string,
    deliveryKey: string | null,
    forgetAfterSeconds: number,
  ): Promise<boolean> {
    await this.dataSource.query('DELETE FROM webhook_signatures WHERE received_at < NOW(3) - INTERVAL ? SECOND LIMIT 100', [
      forgetAfterSeconds,
    ]);
    try {
      await this.dataSource.query('INSERT INTO webhook_signatures (trigger_uuid, signature, delivery_key) VALUES (?, ?, ?)', [
        triggerUuid,
        signature,
        deliveryKey,
      ]);
      return true;
    } catch (error) {
      // The trigger went since it was read: answered as an unknown trigger is.
      if (isMissingParent(error))
        throw new DomainError(ErrorCode.Unauthorized, `Trigger ${triggerUuid} is gone`, { field: 'x-stepwise-signature' });
      if (!isDuplicateKey(error)) throw error;
    }
    if (deliveryKey === null) return false;
    const [first] = (await this.dataSource.query('SELECT delivery_key FROM webhook_signatures WHERE trigger_uuid = ? AND signature = ?', [
      triggerUuid,
      signature,
    ])) as { delivery_key: string | null }[];
    return first?.delivery_key === deliveryKey;
  }

  async recordEvent({ body_json, ...event }: NewTriggerEvent): Promise<string> {
    const uuid = randomUUID();
    try {
      // The text goes in as a parameter, past the column's JSON.stringify transformer.
      await this.dataSource.manager
        .createQueryBuilder()
        .insert()
        .into(TriggerEventEntity)
        .values({ ...event, uuid, body: () => ':body_json' })
        .setParameter('body_json', body_json)
        .execute();
    } catch (error) {
      // The trigger was deleted during the delivery: its log went with it, as this line would have a moment later.
      if (!isMissingParent(error)) throw error;
    }
    return uuid;
  }

  async listEvents(userId: string, triggerUuid: string, request: PageRequest): Promise<Page<TriggerEventRecord>> {
    const query = this.dataSource
      .getRepository(TriggerEventEntity)
      .createQueryBuilder('row')
      .where('row.user_id = :userId AND row.trigger_uuid = :triggerUuid', { userId, triggerUuid });
    const page = await pageOf(query, 'received_at', request);
    return { ...page, items: page.items.map(({ user_id: _u, ...event }) => event) };
  }
}

import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, evaluateRules, notFound } from '@app/domain';
import { TriggerHookRepository } from '@app/persistence';
import { RunsService } from '../runs/runs.service';
import { deliveryIsAuthentic, deliveryRunUuid } from './webhook-auth';

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  body: unknown;
}

export type DeliveryOutcome = { matched: false; event_uuid: string } | { matched: true; event_uuid: string; run_uuid: string; duplicate: boolean };

/** POST /hooks/{trigger_uuid}: authenticate, filter, start at most one run per delivery key. */
@Injectable()
export class HooksService {
  constructor(
    private readonly hooks: TriggerHookRepository,
    private readonly runs: RunsService,
  ) {}

  async deliver(triggerUuid: string, delivery: Delivery): Promise<DeliveryOutcome> {
    const target = await this.hooks.findTarget(triggerUuid);
    if (!target || target.trigger.type !== 'webhook') throw notFound('Webhook trigger', triggerUuid);
    if (!target.secret || !deliveryIsAuthentic(target.secret, delivery.headers, delivery.rawBody)) {
      throw new DomainError(ErrorCode.Unauthorized, 'Send the trigger secret in X-Stepwise-Secret, or an HMAC-SHA256 of the body in X-Stepwise-Signature');
    }
    const key = [delivery.headers['idempotency-key'], delivery.headers['x-delivery-id']].find((value): value is string => typeof value === 'string' && value.length > 0) ?? null;
    const event = { trigger_uuid: triggerUuid, user_id: target.user_id, delivery_key: key, body: delivery.body };
    if (!evaluateRules(target.trigger.filter_rules, delivery.body)) {
      return { matched: false, event_uuid: await this.hooks.recordEvent({ ...event, matched: false, run_uuid: null }) };
    }
    const { created, run } = await this.runs.start(target.user_id, target.workflow_uuid, delivery.body, key ? deliveryRunUuid(triggerUuid, key) : undefined);
    const event_uuid = await this.hooks.recordEvent({ ...event, matched: true, run_uuid: run.uuid });
    return { matched: true, event_uuid, run_uuid: run.uuid, duplicate: !created };
  }
}

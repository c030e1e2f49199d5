import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { assertStorableJson, DomainError, ErrorCode, evaluateRules, ExpressionMeter } from '@app/domain';
import { SecretBox } from '@app/security';
import { TriggerHookRepository } from '@app/persistence';
import { RunStarter } from '@app/runs';
import { authenticateDelivery, deliveryKeyOf, deliveryRunUuid } from './webhook-auth';

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  body: unknown;
}

export type DeliveryOutcome =
  { matched: false; event_uuid: string } | { matched: true; event_uuid: string; run_uuid: string; duplicate: boolean };

/** POST /hooks/{trigger_uuid}: authenticate, filter, start at most one run per delivery key. */
@Injectable()
export class HooksService {
  constructor(
    private readonly hooks: TriggerHookRepository,
    private readonly runs: RunStarter,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
  ) {}

  async deliver(triggerUuid: string, delivery: Delivery): Promise<DeliveryOutcome> {
    const target = await this.hooks.findTarget(triggerUuid);
    // An unknown trigger and a known one without a secret answer as a bad signature does: no probing for uuids.
    const secret = target?.trigger.type === 'webhook' && target.secret ? this.secrets.reveal(target.secret) : null;
    if (!target || !secret)
      throw new DomainError(
        ErrorCode.Unauthorized,
        'Sign the delivery in X-Stepwise-Signature (t=...,v1=...), or send the trigger secret in X-Stepwise-Secret',
      );
    const { toleranceSeconds } = this.config.webhooks;
    const signature = authenticateDelivery(secret, delivery.headers, delivery.rawBody, toleranceSeconds);
    // Checked before anything is written: the key is stored with the signature and the event.
    const key = deliveryKeyOf(delivery.headers);
    // Remembered twice as long as the tolerance: a timestamp may be that far from the receiver's clock either way.
    // The same signature with the same key is the sender repeating one delivery: it goes on to find its run.
    if (signature && !(await this.hooks.rememberSignature(triggerUuid, signature, key, 2 * toleranceSeconds))) {
      throw new DomainError(
        ErrorCode.WebhookReplayed,
        'This signature was accepted before for another delivery: a delivery is taken once (repeat it with its Idempotency-Key to get its run); sign a new one to send it again',
        { field: 'x-stepwise-signature' },
      );
    }
    // Bounded before the rules walk it: in size by the JSON parser (API_BODY_LIMIT_BYTES), in depth and text
    // here (what MySQL would refuse to store is a 422, not a 500); the rules' own work by their ExpressionMeter.
    assertStorableJson(delivery.body, 'body');
    const event = { trigger_uuid: triggerUuid, user_id: target.user_id, delivery_key: key, body: delivery.body };
    if (!evaluateRules(target.trigger.filter_rules, delivery.body, new ExpressionMeter(this.config.limits.expression))) {
      return { matched: false, event_uuid: await this.hooks.recordEvent({ ...event, matched: false, run_uuid: null }) };
    }
    const { created, run } = await this.runs.start({
      userId: target.user_id,
      workflowUuid: target.workflow_uuid,
      triggerOutput: delivery.body,
      origin: 'webhook',
      ...(key ? { runUuid: deliveryRunUuid(triggerUuid, key) } : {}),
    });
    const event_uuid = await this.hooks.recordEvent({ ...event, matched: true, run_uuid: run.uuid });
    return { matched: true, event_uuid, run_uuid: run.uuid, duplicate: !created };
  }
}

import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DomainError, ErrorCode, type SerializedOutput } from '@app/domain';
import { SecretBox } from '@app/security';
import { TriggerHookRepository } from '@app/persistence';
import { RunStarter } from '@app/runs';
import { ThreadPool, ThreadPoolFull, ThreadPoolTimeout } from '../common/thread-pool';
import { workerScript } from '../common/worker-script';
import type { DeliveryCheck, DeliveryVerdict } from './delivery-check';
import { authenticateDelivery, deliveryKeyOf, deliveryRunUuid } from './webhook-auth';

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as received: signed, and read as JSON only in the delivery pool. */
  rawBody: Buffer;
  /** Whether the request was JSON (else its body is null). */
  json: boolean;
}

export type DeliveryOutcome =
  { matched: false; event_uuid: string } | { matched: true; event_uuid: string; run_uuid: string; duplicate: boolean };

/** POST /hooks/{trigger_uuid}: authenticate, filter, start at most one run per delivery key. */
@Injectable()
export class HooksService implements OnModuleDestroy {
  /**
   * Reads, bounds and filters each delivery's body off the event loop, and serializes a matched one's trigger
   * data there (issue #26: one 0.8 MB body held it ~100 ms).
   */
  private readonly pool: ThreadPool;

  constructor(
    private readonly hooks: TriggerHookRepository,
    private readonly runs: RunStarter,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
  ) {
    const { script, options } = workerScript(__dirname, 'delivery-check.worker');
    const { checkThreads, checkQueue, checkTimeLimitMs } = config.webhooks;
    this.pool = new ThreadPool(script, { size: checkThreads, maxQueued: checkQueue, timeLimitMs: checkTimeLimitMs }, options);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }

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
    const raw = delivery.json ? delivery.rawBody : null;
    const trigger = await this.check({ raw, rules: target.trigger.filter_rules, budget: this.config.limits.expression });
    // The event is stored as the text that came in (the pool found it valid JSON): no parse on this thread.
    // (Without a byte-order mark, which JSON.parse and MySQL's JSON_VALID refuse.)
    const text = raw ? (raw.length ? raw.toString('utf8').replace(/^\uFEFF/, '') : '{}') : 'null';
    const event = { trigger_uuid: triggerUuid, user_id: target.user_id, delivery_key: key, body_json: text };
    if (!trigger) {
      return { matched: false, event_uuid: await this.hooks.recordEvent({ ...event, matched: false, run_uuid: null }) };
    }
    const { created, run } = await this.runs.start({
      userId: target.user_id,
      workflowUuid: target.workflow_uuid,
      // Serialized and described in the pool: this thread passes the text on to MySQL, walking nothing.
      triggerOutput: undefined,
      serializedTrigger: trigger,
      origin: 'webhook',
      ...(key ? { runUuid: deliveryRunUuid(triggerUuid, key) } : {}),
    });
    const event_uuid = await this.hooks.recordEvent({ ...event, matched: true, run_uuid: run.uuid });
    return { matched: true, event_uuid, run_uuid: run.uuid, duplicate: !created };
  }

  /**
   * The pool's verdict on the body and rules: a matched delivery's trigger data, serialized; null when the rules
   * did not match; else the refusal the API answered with when it checked them itself.
   */
  private async check(check: DeliveryCheck): Promise<SerializedOutput | null> {
    let verdict: DeliveryVerdict;
    try {
      verdict = await this.pool.run<DeliveryVerdict>(check);
    } catch (error) {
      if (error instanceof ThreadPoolFull)
        throw new DomainError(ErrorCode.WebhooksBusy, 'Too many deliveries are being checked: send it again shortly', {
          reason: 'queue_full',
        });
      if (error instanceof ThreadPoolTimeout)
        throw new DomainError(
          ErrorCode.WebhooksBusy,
          `Checking the delivery took longer than ${this.config.webhooks.checkTimeLimitMs} ms`,
          {
            reason: 'time_limit',
          },
        );
      throw error;
    }
    if (verdict.ok) return verdict.matched ? verdict.trigger : null;
    if ('parse_error' in verdict)
      throw new DomainError(ErrorCode.InvalidBody, 'The request body could not be read as JSON', {
        field: 'body',
        reason: verdict.parse_error,
      });
    throw new DomainError(verdict.refusal.code as ErrorCode, verdict.refusal.message, verdict.refusal.details);
  }
}

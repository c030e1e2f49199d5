import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError, ErrorCode, nameBasedUuid } from '@app/domain';

export const SECRET_HEADER = 'x-stepwise-secret';
export const SIGNATURE_HEADER = 'x-stepwise-signature';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

const sameText = (a: string, b: string): boolean => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The hex HMAC-SHA256 of `<t>.<raw body>` with the trigger secret: what a sender puts in `v1=`. */
export const signDelivery = (secret: string, timestamp: number, rawBody: Buffer | string): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');

const refused = (code: ErrorCode, message: string) => new DomainError(code, message, { field: SIGNATURE_HEADER });

/**
 * Who may deliver: `X-Stepwise-Signature: t=<unix seconds>,v1=<hex HMAC of "<t>.<raw body>">` (several v1
 * while a secret rotates) no older than the tolerance, or, weaker (a captured delivery can be sent again),
 * the secret itself in X-Stepwise-Secret. Answers the signature accepted (null for the secret header), to
 * be remembered so that it is never accepted twice.
 */
export function authenticateDelivery(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  toleranceSeconds: number,
  nowMs = Date.now(),
): string | null {
  const header = headers[SIGNATURE_HEADER];
  if (typeof header === 'string') {
    const parts = header.split(',').map((part) => part.trim().split('='));
    const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
    const signatures = parts.filter(([key, value]) => key === 'v1' && value).map(([, value]) => value);
    if (!Number.isInteger(timestamp) || signatures.length === 0) {
      throw refused(
        ErrorCode.WebhookSignatureInvalid,
        'X-Stepwise-Signature must be t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">',
      );
    }
    if (Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) {
      throw refused(
        ErrorCode.WebhookSignatureStale,
        `The signature's timestamp is more than ${toleranceSeconds} s away from now: sign each delivery when you send it`,
      );
    }
    const expected = signDelivery(secret, timestamp, rawBody);
    const accepted = signatures.find((signature) => sameText(signature, expected));
    if (!accepted) throw refused(ErrorCode.WebhookSignatureInvalid, "The signature does not match the body with this trigger's secret");
    return accepted;
  }
  const given = headers[SECRET_HEADER];
  if (typeof given === 'string' && sameText(given, secret)) return null;
  throw refused(
    ErrorCode.Unauthorized,
    'Sign the delivery in X-Stepwise-Signature (t=...,v1=...), or send the trigger secret in X-Stepwise-Secret',
  );
}

/** The delivery's Idempotency-Key (or X-Delivery-Id), null without one; refused unless 1 to 200 visible ASCII characters. */
export function deliveryKeyOf(headers: Record<string, string | string[] | undefined>): string | null {
  const key =
    [headers['idempotency-key'], headers['x-delivery-id']].find(
      (value): value is string => typeof value === 'string' && value.length > 0,
    ) ?? null;
  if (key !== null && !/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'Idempotency-Key (or X-Delivery-Id) must be 1 to 200 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return key;
}

/** A repeated delivery (same trigger, same key) names the same run: a name-based (v5-style) uuid. */
export function deliveryRunUuid(triggerUuid: string, key: string): string {
  return nameBasedUuid(triggerUuid, key);
}

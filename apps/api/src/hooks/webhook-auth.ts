import { randomBytes, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_HEADER, signBody } from '@app/providers';
import { nameBasedUuid } from '../common/uuids';

export const SECRET_HEADER = 'x-stepwise-secret';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

const sameText = (a: string, b: string): boolean => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The secret itself in X-Stepwise-Secret, or `sha256=<hex HMAC of the raw body>` in X-Stepwise-Signature. */
export function deliveryIsAuthentic(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: Buffer): boolean {
  const given = headers[SECRET_HEADER];
  if (typeof given === 'string' && sameText(given, secret)) return true;
  const signature = headers[SIGNATURE_HEADER];
  return typeof signature === 'string' && sameText(signature, signBody(secret, rawBody));
}

/** A repeated delivery (same trigger, same key) names the same run: a name-based (v5-style) uuid. */
export function deliveryRunUuid(triggerUuid: string, key: string): string {
  return nameBasedUuid(triggerUuid, key);
}

import { createHmac } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of the body>`: how webhooks prove themselves to us and notifications to users. */
export const signBody = (secret: string, body: Buffer | string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export const SIGNATURE_HEADER = 'x-stepwise-signature';

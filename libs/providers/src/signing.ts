// Run-end notifications follow Standard Webhooks (standardwebhooks.com), so receivers verify them with an
// existing library: webhook-id, webhook-timestamp, and webhook-signature `v1,<base64 HMAC-SHA256 of
// "<id>.<timestamp>.<body>">` keyed with the secret's bytes (the base64 after `whsec_`).
import { createHmac } from 'node:crypto';

/** The key a secret stands for: `whsec_<base64>` decodes; an older `nsec_` secret is used as its text. */
function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function standardWebhookHeaders(secret: string, id: string, body: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const signature = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

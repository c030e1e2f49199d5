// A browser cannot add an Authorization header to the Temporal Web UI's codec calls; it can send a cookie.
// The cookie holds the API key sealed with ENCRYPTION_KEYS and an expiry, so it is no API key anywhere
// else, and it is accepted only by routes marked @KeyCookieAccepted (the codec endpoint).
import { DomainError, ErrorCode, isJsonObject } from '@app/domain';
import { SecretBox, SecretBoxError } from '@app/security';

export const KEY_COOKIE = 'stepwise_codec';
export const KEY_COOKIE_PATH = '/api/v1/temporal-codec';
export const KEY_COOKIE_MAX_AGE_SECONDS = 12 * 3600;

/** A Set-Cookie value: HttpOnly (no script reads it), SameSite=Strict (no other site makes the browser send it). */
export function keyCookie(box: SecretBox, key: string, options: { secure: boolean; maxAgeSeconds: number }, now = Date.now()): string {
  const sealed = box.seal(JSON.stringify({ key, expires_at: now + options.maxAgeSeconds * 1000 }));
  return [
    `${KEY_COOKIE}=${sealed}`,
    `Path=${KEY_COOKIE_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export const clearedKeyCookie = (): string => `${KEY_COOKIE}=; Path=${KEY_COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Strict`;

/** The API key in the request's cookie header; null when there is none, it does not open, or it expired. */
export function keyFromCookie(box: SecretBox, cookieHeader: string | undefined, now = Date.now()): string | null {
  const sealed = (cookieHeader ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${KEY_COOKIE}=`))
    ?.slice(KEY_COOKIE.length + 1);
  if (!sealed || !SecretBox.isSealed(sealed)) return null;
  try {
    const { key, expires_at } = JSON.parse(box.open(sealed)) as { key?: unknown; expires_at?: unknown };
    return typeof key === 'string' && typeof expires_at === 'number' && expires_at > now ? key : null;
  } catch (error) {
    if (error instanceof SecretBoxError || error instanceof SyntaxError) return null;
    throw error;
  }
}

/** How long the cookie lasts, from POST /temporal-codec/session's body: 60 s to 12 h, 12 h when not given. */
export function keyCookieMaxAge(body: unknown): number {
  const fields = isJsonObject(body) ? body : null;
  const unknown = fields ? Object.keys(fields).find((key) => key !== 'max_age_seconds') : 'body';
  if (unknown) throw new DomainError(ErrorCode.ValidationFailed, 'The body takes only max_age_seconds', { field: unknown });
  const seconds = fields!.max_age_seconds ?? KEY_COOKIE_MAX_AGE_SECONDS;
  if (!Number.isInteger(seconds) || (seconds as number) < 60 || (seconds as number) > KEY_COOKIE_MAX_AGE_SECONDS) {
    throw new DomainError(ErrorCode.ValidationFailed, `max_age_seconds must be an integer from 60 to ${KEY_COOKIE_MAX_AGE_SECONDS}`, {
      field: 'max_age_seconds',
    });
  }
  return seconds as number;
}

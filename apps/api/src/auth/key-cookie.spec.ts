import { randomBytes } from 'node:crypto';
import { Keyring, SecretBox } from '@app/security';
import { KEY_COOKIE, keyCookie, keyCookieMaxAge, keyFromCookie } from './key-cookie';

const box = () => new SecretBox(new Keyring([{ id: 'k1', key: randomBytes(32) }]));
const valueOf = (setCookie: string) => setCookie.split(';')[0];

describe(keyFromCookie.name, () => {
  it('gives back the key sealed in the cookie among the others, until it expires', () => {
    const sut = box();
    const cookie = keyCookie(sut, 'sk_secret', { secure: false, maxAgeSeconds: 43_200 }, 1_000);
    expect(cookie).not.toContain('sk_secret');
    expect(cookie).toMatch(/; Path=\/api\/v1\/temporal-codec; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(keyFromCookie(sut, `other=1; ${valueOf(cookie)}`, 2_000)).toBe('sk_secret');
    expect(keyFromCookie(sut, valueOf(cookie), 1_000 + 43_200_000)).toBeNull();
    expect(keyCookie(sut, 'sk_secret', { secure: true, maxAgeSeconds: 60 })).toMatch(/; Secure$/);
  });

  it('finds nothing in a missing, plain, foreign or altered cookie', () => {
    const sut = box();
    expect(keyFromCookie(sut, undefined)).toBeNull();
    expect(keyFromCookie(sut, `${KEY_COOKIE}=sk_plain_key`)).toBeNull();
    expect(keyFromCookie(sut, valueOf(keyCookie(box(), 'sk_other_keyring', { secure: false, maxAgeSeconds: 60 })))).toBeNull();
    expect(keyFromCookie(sut, `${valueOf(keyCookie(sut, 'sk_secret', { secure: false, maxAgeSeconds: 60 })).slice(0, -4)}AAAA`)).toBeNull();
  });
});

describe(keyCookieMaxAge.name, () => {
  it('takes max_age_seconds from 60 s to 12 h, 12 h by default, and refuses anything else naming the field', () => {
    expect(keyCookieMaxAge({})).toBe(43_200);
    expect(keyCookieMaxAge({ max_age_seconds: 600 })).toBe(600);
    expect(() => keyCookieMaxAge({ max_age_seconds: 59 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'max_age_seconds' } }),
    );
    expect(() => keyCookieMaxAge({ max_age_seconds: '600' })).toThrow('max_age_seconds must be an integer');
    expect(() => keyCookieMaxAge({ name: 'x' })).toThrow(expect.objectContaining({ details: { field: 'name' } }));
    expect(() => keyCookieMaxAge([])).toThrow(expect.objectContaining({ details: { field: 'body' } }));
  });
});

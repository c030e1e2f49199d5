import { AddressLimiter, bucketOfPath, type SeenRequest } from './address-limiter';
import { addressKey } from './client-address';
import { KEY_COOKIE } from './key-cookie';

const request = (path: string, ip: string, headers: Record<string, string> = {}): SeenRequest => ({
  path,
  ip,
  header: (name) => headers[name.toLowerCase()],
});
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** How many of `count` requests the limiter admits before its first refusal. */
function admitted(sut: AddressLimiter, seen: SeenRequest, count: number): number {
  for (let i = 0; i < count; i++) {
    try {
      sut.admit(seen);
    } catch {
      return i;
    }
  }
  return count;
}

describe(bucketOfPath.name, () => {
  it('never limits liveness, sorts readiness and webhooks by path, and counts any other path as a credential check', () => {
    expect(['/api/v1/health/live', '/API/V1/Health/Live/'].map(bucketOfPath)).toEqual([null, null]);
    expect(['/api/v1/health/ready', '/api/v1/health', '/api/v1/health/'].map(bucketOfPath)).toEqual([
      'readiness',
      'readiness',
      'readiness',
    ]);
    expect(['/api/v1/hooks/abc', '/API/v1/HOOKS/abc'].map(bucketOfPath)).toEqual(['hooks', 'hooks']);
    expect(['/api/v1/workflows', '/mcp', '/api/v1/health/live/x', '/api/v1//health/live', '/assistant'].map(bucketOfPath)).toEqual(
      Array(5).fill('credentials'),
    );
  });
});

describe(AddressLimiter.name, () => {
  it('refuses an address past its burst with RATE_LIMITED and a Retry-After, and lets it in again as the allowance refills', () => {
    let now = 0;
    const sut = new AddressLimiter(60, 5, () => now);
    const bad = request('/api/v1/workflows', '203.0.113.7', bearer('sk_wrong'));
    expect(admitted(sut, bad, 50)).toBe(5);
    expect(() => sut.admit(bad)).toThrow(
      expect.objectContaining({
        code: 'RATE_LIMITED',
        details: { retry_after_seconds: 1 },
        message: expect.stringContaining('from this address'),
      }),
    );
    expect(admitted(sut, request('/api/v1/workflows', '203.0.113.8'), 50)).toBe(5);
    now += 1000;
    expect(admitted(sut, bad, 50)).toBe(1);
  });

  it('keeps bad keys, webhooks and readiness in separate buckets of an address, and never counts liveness', () => {
    const sut = new AddressLimiter(60, 3, () => 0);
    const ip = '198.51.100.1';
    expect(admitted(sut, request('/api/v1/runs', ip, bearer('sk_wrong')), 10)).toBe(3);
    expect(admitted(sut, request('/api/v1/hooks/t1', ip), 10)).toBe(3);
    expect(admitted(sut, request('/api/v1/health/ready', ip), 10)).toBe(3);
    expect(admitted(sut, request('/api/v1/health/live', ip), 1000)).toBe(1000);
  });

  it('lets a credential the guard accepted pass free, even from an address its bad keys exhausted, until the guard refuses it', () => {
    const sut = new AddressLimiter(60, 2, () => 0);
    const ip = '192.0.2.10';
    const good = request('/api/v1/workflows', ip, bearer('sk_good'));
    sut.admit(good);
    sut.remember(good);
    expect(admitted(sut, request('/api/v1/workflows', ip, bearer('sk_guess')), 10)).toBe(1);
    expect(admitted(sut, good, 100)).toBe(100);
    // An unseen key, even a valid one, pays like any other: the address has nothing left.
    expect(() => sut.admit(request('/api/v1/workflows', ip, bearer('sk_other_good')))).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED' }),
    );
    sut.forget(good);
    expect(() => sut.admit(good)).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
  });

  it('knows the codec cookie as it was sent, and still counts webhooks and readiness of a known credential', () => {
    const sut = new AddressLimiter(60, 1, () => 0);
    const ip = '192.0.2.20';
    const browser = request('/api/v1/temporal-codec/decode', ip, { cookie: `other=1; ${KEY_COOKIE}=v1.sealed` });
    sut.admit(browser);
    sut.remember(browser);
    expect(admitted(sut, browser, 20)).toBe(20);
    expect(() => sut.admit(request('/api/v1/temporal-codec/decode', ip, { cookie: `${KEY_COOKIE}=v1.forged` }))).toThrow();
    const hook = request('/api/v1/hooks/t1', ip, bearer('sk_good'));
    sut.remember(hook);
    expect(admitted(sut, hook, 5)).toBe(1);
  });
});

describe(addressKey.name, () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped ones, and counts IPv6 clients by their /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('1::2:3:4:5:6:7')).toBe('1:0:2:3::/64');
    expect(addressKey('::ffff:1.2.3.4:5')).toBe('::ffff:1.2.3.4:5');
  });
});

import fc from 'fast-check';
import { addressBytes, deniedRange, EgressAllowList, egressAllowIssue, egressRefusal } from './address-policy';

describe(deniedRange.name, () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.100.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.88.99.1', '6to4 relay anycast (deprecated)'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['0000:0000:0000:0000:0000:FFFF:7F00:0001', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local (cloud metadata)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    // IPv4-compatible (::/96), as a URL writes `[::127.0.0.1]`
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'link-local (cloud metadata)'],
    // IPv4-translated (::ffff:0:0:0/96)
    ['::ffff:0:7f00:1', 'loopback'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'IETF protocol assignments'],
    ['fec0::1', 'site-local (deprecated)'],
    ['feff::1', 'site-local (deprecated)'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation'],
    ['3fff:1::1', 'documentation'],
    ['5f00::1', 'segment routing (SRv6) SIDs'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, range) => expect(deniedRange(address)).toBe(range));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::808:808',
    '2001:4860:4860::8888',
    '2001:200::1',
  ])('lets %s through', (address) => expect(deniedRange(address)).toBeNull());
});

describe('deniedRange, as properties', () => {
  const deniedV4 = fc.oneof(
    ...[
      [127, 8],
      [10, 8],
      [169, 16, 254],
      [172, 12, 16],
      [192, 16, 168],
      [100, 10, 64],
      [0, 8],
      [224, 4],
      [240, 4],
    ].map(([first, , second]) =>
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([b, c, d]) => {
        if (first >= 224) return [first + (b & 15), b, c, d];
        if (first === 172) return [172, 16 + (b & 15), c, d];
        if (first === 100) return [100, 64 + (b & 63), c, d];
        return second === undefined ? [first, b, c, d] : [first, second, c, d];
      }),
    ),
  );
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  const padded = (word: string) => word.padStart(4, '0');
  /** The IPv6 texts that carry these four bytes, in the forms and spellings a URL or a resolver may give. */
  const forms = (v4: number[], random: number[]) => {
    const [a, b, c, d] = v4;
    const dotted = v4.join('.');
    const [h1, h2] = [hex(a, b), hex(c, d)];
    return [
      `::ffff:${dotted}`,
      `::ffff:${h1}:${h2}`,
      `0:0:0:0:0:ffff:${dotted}`,
      `0000:0000:0000:0000:0000:FFFF:${padded(h1).toUpperCase()}:${padded(h2)}`,
      `::${dotted}`,
      `::${h1}:${h2}`,
      `::ffff:0:${dotted}`,
      `64:ff9b::${dotted}`,
      `64:ff9b::${h1}:${h2}`,
      `64:ff9b:1:${random[0].toString(16)}::${h1}:${h2}`,
      `2002:${h1}:${h2}:${random[0].toString(16)}::${random[1].toString(16)}`,
      `2001:0:${h1}:${h2}:${random[0].toString(16)}:${random[1].toString(16)}:${hex(255 - a, 255 - b)}:${hex(255 - c, 255 - d)}`,
      `::ffff:${dotted}%eth0`,
    ];
  };

  it('refuses every IPv6 form that embeds a denied IPv4 address, as written and as a URL writes it', () => {
    fc.assert(
      fc.property(deniedV4, fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 2, maxLength: 2 }), (v4, random) => {
        for (const form of forms(v4, random)) {
          expect([form, deniedRange(form)]).toEqual([form, expect.any(String)]);
          const inUrl = new URL(`http://[${form.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
          expect([inUrl, deniedRange(inUrl)]).toEqual([inUrl, expect.any(String)]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('gives an IPv4-mapped address the verdict of the IPv4 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        expect(deniedRange(`::ffff:${v4}`)).toBe(deniedRange(v4));
        expect(deniedRange(new URL(`http://[::ffff:${v4}]/`).hostname.slice(1, -1))).toBe(deniedRange(v4));
      }),
      { numRuns: 500 },
    );
  });

  it('reads any IPv6 spelling to the bytes of its canonical form', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
        expect(Array.from(addressBytes(address)!)).toEqual(Array.from(addressBytes(canonical)!));
        expect(deniedRange(address)).toBe(deniedRange(canonical));
      }),
      { numRuns: 500 },
    );
  });
});

describe(EgressAllowList.name, () => {
  const sut = new EgressAllowList(['127.0.0.1/32', '10.1.0.0/16', 'tools.intranet', '*.corp.example', '::1']);

  it('allows named hosts, suffixes and CIDRs, in IPv4-mapped form too', () => {
    expect(egressRefusal(sut, '127.0.0.1', '127.0.0.1')).toBeNull();
    expect(egressRefusal(sut, 'x', '::ffff:127.0.0.1')).toBeNull();
    expect(egressRefusal(sut, 'x', '0:0:0:0:0:ffff:7f00:1')).toBeNull();
    expect(egressRefusal(sut, 'x', '10.1.200.3')).toBeNull();
    expect(egressRefusal(sut, 'tools.intranet', '10.9.9.9')).toBeNull();
    expect(egressRefusal(sut, 'api.corp.example', '192.168.0.4')).toBeNull();
    expect(egressRefusal(sut, '::1', '::1')).toBeNull();
  });

  it('does not let an allowed IPv4 address through a tunnel to it', () => {
    expect(egressRefusal(sut, 'x', '2002:7f00:1::1')).toBe('x (2002:7f00:1::1) is in a 6to4 range');
  });

  it('refuses the rest of the denied ranges, naming host and address', () => {
    expect(egressRefusal(sut, '127.0.0.2', '127.0.0.2')).toBe('127.0.0.2 is in a loopback range');
    expect(egressRefusal(sut, 'localhost.corp.example.evil', '10.2.0.1')).toBe(
      'localhost.corp.example.evil (10.2.0.1) is in a private range',
    );
    expect(egressRefusal(sut, 'example.com', '93.184.216.34')).toBeNull();
  });

  it('checks entries of the setting', () => {
    expect(['127.0.0.1/32', '*.corp.example', 'tools', '::1', 'fd00::/8'].map(egressAllowIssue)).toEqual([null, null, null, null, null]);
    expect(egressAllowIssue('10.0.0.0/33')).toContain('prefix length');
    expect(egressAllowIssue('http://x')).toContain('not a host name or a CIDR');
  });
});

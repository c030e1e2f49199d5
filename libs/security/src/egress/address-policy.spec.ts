import { deniedRange, EgressAllowList, egressAllowIssue, egressRefusal } from './address-policy';

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
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local (cloud metadata)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
  ])('refuses %s (%s)', (address, range) => expect(deniedRange(address)).toBe(range));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) => expect(deniedRange(address)).toBeNull());
});

describe(EgressAllowList.name, () => {
  const sut = new EgressAllowList(['127.0.0.1/32', '10.1.0.0/16', 'tools.intranet', '*.corp.example', '::1']);

  it('allows named hosts, suffixes and CIDRs, in IPv4-mapped form too', () => {
    expect(egressRefusal(sut, '127.0.0.1', '127.0.0.1')).toBeNull();
    expect(egressRefusal(sut, 'x', '::ffff:127.0.0.1')).toBeNull();
    expect(egressRefusal(sut, 'x', '10.1.200.3')).toBeNull();
    expect(egressRefusal(sut, 'tools.intranet', '10.9.9.9')).toBeNull();
    expect(egressRefusal(sut, 'api.corp.example', '192.168.0.4')).toBeNull();
    expect(egressRefusal(sut, '::1', '::1')).toBeNull();
  });

  it('refuses the rest of the denied ranges, naming host and address', () => {
    expect(egressRefusal(sut, '127.0.0.2', '127.0.0.2')).toBe('127.0.0.2 is in a loopback range');
    expect(egressRefusal(sut, 'localhost.corp.example.evil', '10.2.0.1')).toBe('localhost.corp.example.evil (10.2.0.1) is in a private range');
    expect(egressRefusal(sut, 'example.com', '93.184.216.34')).toBeNull();
  });

  it('checks entries of the setting', () => {
    expect(['127.0.0.1/32', '*.corp.example', 'tools', '::1', 'fd00::/8'].map(egressAllowIssue)).toEqual([null, null, null, null, null]);
    expect(egressAllowIssue('10.0.0.0/33')).toContain('prefix length');
    expect(egressAllowIssue('http://x')).toContain('not a host name or a CIDR');
  });
});

// Which addresses the worker may fetch from for users: none of loopback, private, link-local (cloud
// metadata at 169.254.169.254), carrier-grade NAT, multicast, reserved or documentation ranges, in IPv4,
// IPv6 and the IPv6 forms that carry an IPv4 address. An operator may allow host names and CIDRs.
import { BlockList, isIP } from 'node:net';

const DENIED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const DENIED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
];

/** Where an IPv6 address carries an IPv4 one: mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96), compatible (::a.b.c.d). */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function blockListOf(ranges: { v4: [string, number, string][]; v6: [string, number, string][] }): { list: BlockList; names: Map<string, string> } {
  const list = new BlockList();
  const names = new Map<string, string>();
  for (const [network, prefix, name] of ranges.v4) {
    list.addSubnet(network, prefix, 'ipv4');
    names.set(`${network}/${prefix}`, name);
  }
  for (const [network, prefix, name] of ranges.v6) {
    list.addSubnet(network, prefix, 'ipv6');
    names.set(`${network}/${prefix}`, name);
  }
  return { list, names };
}

const denied = blockListOf({ v4: DENIED_V4, v6: DENIED_V6 });

/** The kind of denied range the address is in (`loopback`, ...), or null when users may reach it. */
export function deniedRange(address: string): string | null {
  const v4 = isIP(address) === 4 ? address : embeddedV4(address);
  if (v4) return rangeOf(v4, 'ipv4', DENIED_V4);
  if (isIP(address) !== 6) return 'not an IP address';
  return rangeOf(address, 'ipv6', DENIED_V6);
}

function rangeOf(address: string, family: 'ipv4' | 'ipv6', ranges: [string, number, string][]): string | null {
  if (!denied.list.check(address, family)) return null;
  for (const [network, prefix, name] of ranges) {
    const one = new BlockList();
    one.addSubnet(network, prefix, family);
    if (one.check(address, family)) return name;
  }
  return 'denied';
}

/** EGRESS_ALLOW: host names (`tools.intranet`, `*.corp.example`) and CIDRs (`10.1.0.0/16`, `127.0.0.1/32`). */
export class EgressAllowList {
  private readonly names: string[] = [];
  private readonly suffixes: string[] = [];
  private readonly networks = new BlockList();

  constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const [network, prefix] = entry.split('/');
      const family = isIP(network);
      if (family && prefix !== undefined) this.networks.addSubnet(network, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
      else if (family) this.networks.addAddress(network, family === 4 ? 'ipv4' : 'ipv6');
      else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1).toLowerCase());
      else this.names.push(entry.toLowerCase());
    }
  }

  allowsHost(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.names.includes(name) || this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  allowsAddress(address: string): boolean {
    const v4 = isIP(address) === 4 ? address : embeddedV4(address);
    return v4 ? this.networks.check(v4, 'ipv4') : isIP(address) === 6 && this.networks.check(address, 'ipv6');
  }
}

/** Checks an EGRESS_ALLOW entry; the message names what is wrong with it. */
export function egressAllowIssue(entry: string): string | null {
  const [network, prefix, extra] = entry.split('/');
  const family = isIP(network);
  if (extra !== undefined) return `"${entry}" is not a host name or a CIDR`;
  if (family && prefix !== undefined) {
    const bits = Number(prefix);
    return Number.isInteger(bits) && bits >= 0 && bits <= (family === 4 ? 32 : 128) ? null : `"${entry}" has a prefix length out of range`;
  }
  if (family || /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry)) return null;
  return `"${entry}" is not a host name or a CIDR`;
}

/** A host and the address it resolved to: refused unless allowed, or outside every denied range. */
export function egressRefusal(allow: EgressAllowList, host: string, address: string): string | null {
  if (allow.allowsHost(host) || allow.allowsAddress(address)) return null;
  const range = deniedRange(address);
  return range ? `${host === address ? address : `${host} (${address})`} is in a ${range} range` : null;
}

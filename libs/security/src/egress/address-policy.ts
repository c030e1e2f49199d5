// Which addresses the worker may fetch from for users: none of the IANA special-purpose ranges that are
// not globally reachable (loopback, private, link-local with cloud metadata at 169.254.169.254,
// carrier-grade NAT, multicast, reserved, documentation, benchmarking, transition prefixes...), in IPv4,
// IPv6 and every IPv6 form that carries an IPv4 address. Addresses are compared as bytes, so any textual
// form of one (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, a zone id) gets the same verdict. An
// operator may allow host names and CIDRs.
import { BlockList, isIP } from 'node:net';

interface Range {
  bytes: Uint8Array;
  prefix: number;
  name: string;
}

const range = (network: string, prefix: number, name: string): Range => ({ bytes: addressBytes(network)!, prefix, name });

// IANA IPv4 Special-Purpose Address Registry, the entries not globally reachable (plus multicast and the
// deprecated 6to4 relay anycast). The globally reachable ones (AS112, AMT) stay reachable.
const DENIED_V4: Range[] = [
  range('0.0.0.0', 8, 'this network'),
  range('10.0.0.0', 8, 'private'),
  range('100.64.0.0', 10, 'carrier-grade NAT'),
  range('127.0.0.0', 8, 'loopback'),
  range('169.254.0.0', 16, 'link-local (cloud metadata)'),
  range('172.16.0.0', 12, 'private'),
  range('192.0.0.0', 24, 'IETF protocol assignments'),
  range('192.0.2.0', 24, 'documentation'),
  range('192.88.99.0', 24, '6to4 relay anycast (deprecated)'),
  range('192.168.0.0', 16, 'private'),
  range('198.18.0.0', 15, 'benchmarking'),
  range('198.51.100.0', 24, 'documentation'),
  range('203.0.113.0', 24, 'documentation'),
  range('224.0.0.0', 4, 'multicast'),
  range('240.0.0.0', 4, 'reserved'),
];

// IANA IPv6 Special-Purpose Address Registry likewise. The forms that carry an IPv4 address the host
// reaches (mapped, compatible, translated, NAT64's well-known prefix) are judged by that address instead
// (EMBEDDING); 6to4 and Teredo tunnel to an address of their own choosing, and the local-use NAT64
// prefix translates inside a private network: all three are refused whole.
const DENIED_V6: Range[] = [
  range('::', 128, 'unspecified'),
  range('::1', 128, 'loopback'),
  range('64:ff9b:1::', 48, 'local-use NAT64'),
  range('100::', 64, 'discard-only'),
  range('100:0:0:1::', 64, 'dummy prefix'),
  range('2001::', 32, 'Teredo'),
  range('2001::', 23, 'IETF protocol assignments'),
  range('2001:db8::', 32, 'documentation'),
  range('2002::', 16, '6to4'),
  range('3fff::', 20, 'documentation'),
  range('5f00::', 16, 'segment routing (SRv6) SIDs'),
  range('fc00::', 7, 'unique local (private)'),
  range('fe80::', 10, 'link-local'),
  range('fec0::', 10, 'site-local (deprecated)'),
  range('ff00::', 8, 'multicast'),
];

/** IPv6 prefixes whose last 32 bits are an IPv4 address the connection ends up at. */
const EMBEDDING: Range[] = [
  range('::ffff:0:0', 96, 'IPv4-mapped'),
  range('::', 96, 'IPv4-compatible (deprecated)'),
  range('::ffff:0:0:0', 96, 'IPv4-translated'),
  range('64:ff9b::', 96, 'NAT64'),
];

/** The 4 or 16 bytes of an IP address in any textual form (an IPv6 zone id is dropped), or null. */
export function addressBytes(address: string): Uint8Array | null {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(text);
  if (family === 4) return Uint8Array.from(text.split('.').map(Number));
  if (family !== 6) return null;
  let groups = text.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    groups = groups.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = groups.split('::');
  const words = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const front = words(head);
  const back = tail === undefined ? [] : words(tail);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return Uint8Array.from(all.flatMap((word) => [word >> 8, word & 255]));
}

function inRange(bytes: Uint8Array, { bytes: network, prefix }: Range): boolean {
  if (bytes.length !== network.length) return false;
  const whole = prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== network[i]) return false;
  const bits = prefix & 7;
  if (!bits) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (bytes[whole] & mask) === (network[whole] & mask);
}

/** The IPv4 address an IPv6 one reaches through its mapped, compatible, translated or NAT64 form. */
function embeddedV4(bytes: Uint8Array): Uint8Array | null {
  return bytes.length === 16 && EMBEDDING.some((form) => inRange(bytes, form)) ? bytes.subarray(12) : null;
}

/** The kind of denied range the address is in (`loopback`, ...), or null when users may reach it. */
export function deniedRange(address: string): string | null {
  const bytes = addressBytes(address);
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return DENIED_V4.find((denied) => inRange(bytes, denied))?.name ?? null;
  // ::, ::1 first: they sit inside the IPv4-compatible prefix but are not IPv4 addresses.
  const own = DENIED_V6.find((denied) => inRange(bytes, denied));
  if (own) return own.name;
  const v4 = embeddedV4(bytes);
  return v4 ? (DENIED_V4.find((denied) => inRange(v4, denied))?.name ?? null) : null;
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

  /** An IPv6 form that reaches an IPv4 address is allowed when that address is. */
  allowsAddress(address: string): boolean {
    const bytes = addressBytes(address);
    if (!bytes) return false;
    if (bytes.length === 4) return this.networks.check(address, 'ipv4');
    const v4 = embeddedV4(bytes);
    return (v4 !== null && this.networks.check(v4.join('.'), 'ipv4')) || this.networks.check(address.replace(/%.*$/, ''), 'ipv6');
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
  const denied = deniedRange(address);
  return denied ? `${host === address ? address : `${host} (${address})`} is in a ${denied} range` : null;
}

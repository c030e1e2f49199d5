// Whom a per-address limit counts: the request's address as Express gives it (`req.ip`: the socket's, or,
// when API_TRUST_PROXY names the proxies in front, the client's address they forwarded).
import { isIPv4, isIPv6 } from 'node:net';

/** Express's `req.ip` (undefined only once the socket is gone). */
export const clientAddress = (request: { ip?: string }): string => addressKey(request.ip ?? 'unknown');

/**
 * An IPv4 address as it is (an IPv4-mapped IPv6 one too); an IPv6 address by its /64, which one host or
 * site usually holds whole: counted address by address, it could pick a fresh bucket per request.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  const bare = ip.split('%')[0];
  if (!isIPv6(bare)) return ip;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded; an embedded IPv4 tail counts as two. */
function ipv6Groups(ip: string): string[] {
  const split = (part: string) => (part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : []);
  const [head, tail] = ip.split('::');
  const front = split(head);
  const back = tail === undefined ? [] : split(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return groups.map((group) => parseInt(group, 16).toString(16));
}

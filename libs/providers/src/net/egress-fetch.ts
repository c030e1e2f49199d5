// Every request the worker makes for a user (HTTP tools, http_request, notifications) goes through here:
// the name is resolved when the connection opens and each address it resolves to is checked, so a DNS
// answer cannot change between the check and the connection; redirects are followed by hand, each hop
// checked again, and a hop to another origin sent without the request's credentials; an IP literal is
// checked before anything is sent.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { EgressAllowList, egressRefusal } from '@app/security';

export const MAX_REDIRECTS = 5;

/** A request the egress policy refused: no connection was opened. */
export class EgressDeniedError extends Error {
  readonly code = 'EGRESS_DENIED';

  constructor(readonly reason: string) {
    super(`EGRESS_DENIED: ${reason}; an operator may allow it with EGRESS_ALLOW`);
    this.name = 'EgressDeniedError';
  }
}

export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * What a redirect to another origin keeps of the request's headers: content negotiation only. Anything
 * else may carry a credential (Authorization, Cookie, an API key header a tool or a model set, a
 * notification's webhook-signature, webhook-id and webhook-timestamp), so it is dropped, whatever its name.
 */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'content-type',
  'content-language',
  'user-agent',
]);
/** The headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']);

function withoutHeaders(init: RequestInit['headers'], drop: (name: string) => boolean): Headers {
  const headers = new Headers(init);
  for (const name of [...headers.keys()]) if (drop(name)) headers.delete(name);
  return headers;
}

export class EgressPolicy {
  private readonly allow: EgressAllowList;
  private readonly agent: Agent;

  constructor(allowEntries: readonly string[]) {
    this.allow = new EgressAllowList(allowEntries);
    this.agent = new Agent({ connect: { lookup: this.checkedLookup } });
  }

  /** `fetch` with the policy applied on every hop; `redirect: 'manual'` in `init` returns the 3xx itself. */
  readonly fetch: Fetch = async (url, init = {}) => {
    let target = new URL(url);
    let request = init;
    for (let hop = 0; ; hop++) {
      this.assertLiteral(target);
      const response = (await undiciFetch(target, {
        ...(request as UndiciRequestInit),
        redirect: 'manual',
        dispatcher: this.agent,
      })) as unknown as Response;
      const location = response.headers.get('location');
      if (init.redirect === 'manual' || response.status < 300 || response.status > 399 || !location) return response;
      if (hop >= MAX_REDIRECTS) throw new EgressDeniedError(`more than ${MAX_REDIRECTS} redirects from ${url}`);
      await response.body?.cancel();
      const next = new URL(location, target);
      // 303 (and 301/302 after a POST, as browsers do) turn into a GET without a body.
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && request.method && request.method !== 'GET' && request.method !== 'HEAD')
      ) {
        request = {
          ...request,
          method: 'GET',
          body: undefined,
          headers: withoutHeaders(request.headers, (name) => BODY_HEADERS.has(name)),
        };
      }
      // Credentials were meant for the origin they were sent to: another one gets none of them, for the rest of the chain.
      if (next.origin !== target.origin)
        request = { ...request, headers: withoutHeaders(request.headers, (name) => !CROSS_ORIGIN_HEADERS.has(name)) };
      target = next;
    }
  };

  /** What a save checks: the host resolves only to denied addresses (null when allowed or unresolvable now). */
  async refusalAtSave(url: string): Promise<string | null> {
    const { hostname } = new URL(url);
    const host = hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return egressRefusal(this.allow, host, host);
    const addresses = await new Promise<LookupAddress[]>((resolve) =>
      dnsLookup(host, { all: true }, (error, found) => resolve(error ? [] : found)),
    );
    const refusals = addresses.map(({ address }) => egressRefusal(this.allow, host, address));
    return refusals.length && refusals.every(Boolean) ? refusals[0] : null;
  }

  private assertLiteral(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressDeniedError(`${url.protocol} URLs are not fetched`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!isIP(host)) return;
    const refusal = egressRefusal(this.allow, host, host);
    if (refusal) throw new EgressDeniedError(refusal);
  }

  /** net.connect's lookup: the name resolved as usual, every address it gives checked before one is used. */
  private readonly checkedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const refusal = list.map(({ address }) => egressRefusal(this.allow, hostname, address)).find(Boolean);
      if (refusal) return callback(new EgressDeniedError(refusal), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

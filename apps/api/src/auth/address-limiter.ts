// Requests no API key pays for are limited per client address, in front of authentication: a flood of bad
// keys, webhook deliveries or readiness probes from one place is refused (429 RATE_LIMITED, Retry-After)
// before its body is parsed, its key looked up in MySQL or Temporal asked. Three buckets per address, so
// that bad keys cannot starve the same address's webhooks or its load balancer's readiness probes.
//
// A credential this process has seen authenticate passes free (the per-key limit applies to it in the
// guard): someone guessing keys behind the same NAT, or a test's 500 bad keys from 127.0.0.1, do not lock a
// working key out. A key's first request costs its address one token like any unknown credential.
import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { bearerKey } from './bearer';
import { clientAddress } from './client-address';
import { KEY_COOKIE } from './key-cookie';
import { RateLimiter } from './rate-limiter';

export type AddressBucket = 'credentials' | 'hooks' | 'readiness';

/** What the limiter reads of a request: an Express request is one. */
export interface SeenRequest {
  path: string;
  ip?: string;
  header(name: string): string | undefined;
}

/** Credentials remembered as authenticated, most recent last: enough for every key in use on a replica. */
const MAX_KNOWN_CREDENTIALS = 10_000;

/**
 * Which bucket a path draws on, by the path alone: readiness, webhooks, nothing for liveness (a restart
 * decision must never be refused), and credentials for everything else. Express matches routes ignoring
 * case and a trailing slash, so this does too; any path not recognised draws on credentials.
 */
export function bucketOfPath(path: string): AddressBucket | null {
  const normal = path.toLowerCase().replace(/\/+$/, '');
  if (normal === '/api/v1/health/live') return null;
  if (normal === '/api/v1/health/ready' || normal === '/api/v1/health') return 'readiness';
  if (normal.startsWith('/api/v1/hooks/')) return 'hooks';
  return 'credentials';
}

/** The key the request presents: a Bearer key, else the codec cookie as sent (opened only by the guard). */
function presentedCredential(request: SeenRequest): string | null {
  const bearer = bearerKey(request.header('authorization'));
  if (bearer) return bearer;
  const cookie = (request.header('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${KEY_COOKIE}=`));
  return cookie ?? null;
}

const digest = (credential: string): string => createHash('sha256').update(credential).digest('base64');

export class AddressLimiter {
  private readonly buckets: RateLimiter;
  private readonly known = new Set<string>();

  constructor(perMinute: number, burst: number, now: () => number = Date.now) {
    this.buckets = new RateLimiter(perMinute, burst, 'from this address', now);
  }

  /** Express middleware: mounted before the body parser, so that a refused request costs no parsing. */
  readonly middleware = (request: Request, _response: Response, next: NextFunction): void => {
    try {
      this.admit(request);
      next();
    } catch (error) {
      next(error);
    }
  };

  /** Takes a token of the request's address for its bucket, or throws RATE_LIMITED. */
  admit(request: SeenRequest): void {
    const bucket = bucketOfPath(request.path);
    if (bucket === null) return;
    if (bucket === 'credentials' && this.isKnown(request)) return;
    this.buckets.take(`${bucket}:${clientAddress(request)}`);
  }

  /** The guard accepted the request's credential: its next requests pass free. */
  remember(request: SeenRequest): void {
    const credential = presentedCredential(request);
    if (!credential) return;
    const key = digest(credential);
    this.known.delete(key);
    this.known.add(key);
    if (this.known.size > MAX_KNOWN_CREDENTIALS) this.known.delete(this.known.keys().next().value!);
  }

  /** The guard refused it (revoked since, say): it pays again. */
  forget(request: SeenRequest): void {
    const credential = presentedCredential(request);
    if (credential) this.known.delete(digest(credential));
  }

  private isKnown(request: SeenRequest): boolean {
    const credential = presentedCredential(request);
    return credential !== null && this.known.has(digest(credential));
  }
}

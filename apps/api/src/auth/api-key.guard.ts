import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { DomainError, ErrorCode } from '@app/domain';
import { logContext } from '@app/observability';
import { AddressLimiter } from './address-limiter';
import { ApiKeyService } from './api-key.service';
import { RateLimiter } from './rate-limiter';
import { SecretBox } from '@app/security';
import { KEY_COOKIE_ACCEPTED, PUBLIC_ROUTE, USER_KEY } from './auth.decorators';
import { bearerKey } from './bearer';
import { keyFromCookie } from './key-cookie';

/** Also sets RFC 6750's challenge: it tells a client (an IDE's MCP client, say) to send a Bearer key, and that a sent one was refused. */
function refused(response: Response, message: string, error?: 'invalid_token'): DomainError {
  response.setHeader('WWW-Authenticate', `Bearer realm="stepwise"${error ? `, error="${error}"` : ''}`);
  return new DomainError(ErrorCode.Unauthorized, message);
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyService,
    private readonly limiter: RateLimiter,
    private readonly addresses: AddressLimiter,
    private readonly box: SecretBox,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request & Record<string, unknown>>();
    const response = context.switchToHttp().getResponse<Response>();
    const key = bearerKey(request.header('authorization')) ?? this.cookieKey(context, request.header('cookie'));
    if (!key) throw refused(response, 'Send an API key as Authorization: Bearer <key>');
    const user = await this.keys.authenticate(key);
    if (!user) {
      this.addresses.forget(request);
      throw refused(response, 'The API key is unknown or revoked', 'invalid_token');
    }
    this.addresses.remember(request);
    this.limiter.take(user.keyId);
    request[USER_KEY] = user;
    const logged = logContext.getStore();
    if (logged) logged.user_id = user.userId;
    return true;
  }

  private cookieKey(context: ExecutionContext, cookieHeader: string | undefined): string | null {
    const accepted = this.reflector.getAllAndOverride<boolean>(KEY_COOKIE_ACCEPTED, [context.getHandler(), context.getClass()]);
    return accepted ? keyFromCookie(this.box, cookieHeader) : null;
  }
}

import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError, ErrorCode } from '@app/domain';
import { logContext } from '@app/observability';
import { ApiKeyService } from './api-key.service';
import { RateLimiter } from './rate-limiter';
import { PUBLIC_ROUTE, USER_KEY } from './auth.decorators';

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyService,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request & Record<string, unknown>>();
    const match = /^Bearer\s+(\S+)$/i.exec(request.header('authorization') ?? '');
    if (!match) throw new DomainError(ErrorCode.Unauthorized, 'Send an API key as Authorization: Bearer <key>');
    const user = await this.keys.authenticate(match[1]);
    if (!user) throw new DomainError(ErrorCode.Unauthorized, 'The API key is unknown or revoked');
    this.limiter.take(user.keyId);
    request[USER_KEY] = user;
    const logged = logContext.getStore();
    if (logged) logged.user_id = user.userId;
    return true;
  }
}

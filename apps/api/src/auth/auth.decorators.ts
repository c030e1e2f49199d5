import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { AuthenticatedUser } from './api-key.service';

export const PUBLIC_ROUTE = 'stepwise:public';

/** Routes reachable without an API key (health, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

export const KEY_COOKIE_ACCEPTED = 'stepwise:key-cookie';

/** Routes that also take the API key from the sealed cookie a browser holds (the codec endpoint, key-cookie.ts). */
export const KeyCookieAccepted = () => SetMetadata(KEY_COOKIE_ACCEPTED, true);

export const USER_KEY = 'stepwiseUser';

/** The user of the request's API key; every query is scoped by it. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser => context.switchToHttp().getRequest()[USER_KEY],
);

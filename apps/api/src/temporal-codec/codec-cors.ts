// The Web UI calls the codec endpoint from the browser, from its own origin: CORS for the configured
// origins only (TEMPORAL_CODEC_CORS_ORIGINS), and the preflight answered here, before the API-key guard
// (a preflight carries no key).
import type { NextFunction, Request, Response } from 'express';

export function codecCors(origins: readonly string[]) {
  const allowed = new Set(origins);
  return (request: Request, response: Response, next: NextFunction): void => {
    const origin = request.header('origin');
    response.vary('Origin');
    if (!origin || !allowed.has(origin)) return next();
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    if (request.method !== 'OPTIONS') return next();
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
    response.setHeader('Access-Control-Max-Age', '600');
    response.status(204).end();
  };
}

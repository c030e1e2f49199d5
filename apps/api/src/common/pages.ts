// The API's own pages (/runs, /assistant, /evaluations and /replays reports, /temporal-ui): each one HTML file
// with its script and style inline, served with one policy.
import type { INestApplication } from '@nestjs/common';
import type express from 'express';

/** A page may run only its own inline script and style, and call only this origin. */
export const PAGE_POLICY = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'";

/** Serves `page` at `paths` on Express itself, outside the /api/v1 prefix, with the pages' policy. */
export function mountPage(app: INestApplication, paths: string | RegExp | (string | RegExp)[], page: string): void {
  (app.getHttpAdapter().getInstance() as express.Express).get(paths, (_request, response) => {
    response.set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PAGE_POLICY }).send(page);
  });
}

// The pages at /runs (a list) and /runs/{uuid} (one run, live): plain HTML and a little JavaScript, like
// /assistant; the key is typed into the page and kept in the tab. Mounted on Express itself rather than as
// a controller: the API's own routes are named runs too, and an exclusion from the /api/v1 prefix would
// take them along.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type express from 'express';

const PAGE = readFileSync(path.join(__dirname, 'runs-page.html'), 'utf8');
const POLICY = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'";

export function mountRunsPage(app: INestApplication): void {
  (app.getHttpAdapter().getInstance() as express.Express).get(['/runs', /^\/runs\/[0-9a-f-]{36}$/], (_request, response) => {
    response.set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': POLICY }).send(PAGE);
  });
}

// The pages at /runs (a list) and /runs/{uuid} (one run, live): plain HTML and a little JavaScript, like
// /assistant; the key is typed into the page and kept in the tab. Mounted on Express itself rather than as
// a controller: the API's own routes are named runs too, and an exclusion from the /api/v1 prefix would
// take them along.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { mountPage } from '../common/pages';

const PAGE = readFileSync(path.join(__dirname, 'runs-page.html'), 'utf8');

export function mountRunsPage(app: INestApplication): void {
  mountPage(app, ['/runs', /^\/runs\/[0-9a-f-]{36}$/], PAGE);
}

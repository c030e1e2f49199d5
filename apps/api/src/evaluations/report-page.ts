// The pages at /evaluations/{uuid} (an evaluation's report: regressions first, each case's assertions) and
// /replays/{uuid} (a replay's steps beside the recorded run's): plain HTML and a little JavaScript, like
// /runs; the key is typed into the page and kept in the tab. Mounted on Express, as the runs page is.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { mountPage } from '../common/pages';

const PAGE = readFileSync(path.join(__dirname, 'report-page.html'), 'utf8');

export function mountReportPage(app: INestApplication): void {
  mountPage(app, /^\/(evaluations|replays)\/[0-9a-f-]{36}$/, PAGE);
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AppConfig } from '@app/config';
import { Public } from '../auth';
import { PAGE_POLICY } from '../common/pages';

// The ids stepwise gives executions (run-<uuid>, scheduled-<id>-<time>, summary-..., assistant-<uuid>).
const WORKFLOW_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * GET /temporal-ui[?workflow_id=<id>]: the one step before the Web UI shows payloads decoded. The browser
 * cannot send a Bearer key on the UI's codec calls, so this page trades the key a person types for the codec
 * cookie (POST /temporal-codec/session, from the API's own origin) and then opens the UI. The target is built
 * here from settings and a checked workflow id, never taken from the URL as is: no open redirect.
 */
@ApiExcludeController()
@Controller('temporal-ui')
export class TemporalUiPageController {
  private readonly page = readFileSync(path.join(__dirname, 'temporal-ui-page.html'), 'utf8');

  constructor(private readonly config: AppConfig) {}

  @Get()
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', PAGE_POLICY)
  @Header('Referrer-Policy', 'no-referrer')
  show(@Query('workflow_id') workflowId?: string): string {
    const { webUiUrl, namespace } = this.config.temporal;
    const workflows = `${webUiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows`;
    const target =
      typeof workflowId === 'string' && WORKFLOW_ID.test(workflowId) ? `${workflows}/${encodeURIComponent(workflowId)}` : workflows;
    // JSON inside a script: `<` escaped so that no value can close the script element.
    return this.page.replace('/*TARGET*/null', JSON.stringify(target).replace(/</g, '\\u003c'));
  }
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth';
import { PAGE_POLICY } from '../common/pages';

/** GET /assistant: a page to talk to the assistant (plain HTML and a little JavaScript; the key stays in the page). */
@ApiExcludeController()
@Controller('assistant')
export class AssistantPageController {
  private readonly page = readFileSync(path.join(__dirname, 'assistant-page.html'), 'utf8');

  @Get()
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', PAGE_POLICY)
  show(): string {
    return this.page;
  }
}

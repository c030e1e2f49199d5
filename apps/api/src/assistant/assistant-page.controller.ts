import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth';

/** GET /assistant: a page to talk to the assistant (plain HTML and a little JavaScript; the key stays in the page). */
@ApiExcludeController()
@Controller('assistant')
export class AssistantPageController {
  private readonly page = readFileSync(path.join(__dirname, 'assistant-page.html'), 'utf8');

  @Get()
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
  show(): string {
    return this.page;
  }
}

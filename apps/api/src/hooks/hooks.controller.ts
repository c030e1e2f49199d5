import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth';
import { rawBodyOf } from '../common/raw-body';
import { HooksService } from './hooks.service';

@ApiTags('hooks')
@Controller('hooks')
export class HooksController {
  constructor(private readonly hooks: HooksService) {}

  /** 202 with the run when the event matches the trigger's filter rules, 200 `matched: false` when not. */
  @Public()
  @Post(':triggerUuid')
  @HttpCode(200)
  async deliver(@Param('triggerUuid') triggerUuid: string, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const outcome = await this.hooks.deliver(triggerUuid, { headers: request.headers, rawBody: rawBodyOf(request), body: request.body ?? null });
    if (outcome.matched) response.status(202);
    return outcome;
  }
}

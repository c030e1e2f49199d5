import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth';
import { ApiAnswers } from '../common/openapi';
import { rawBodyOf } from '../common/raw-body';
import { HooksService } from './hooks.service';

@ApiTags('hooks')
@Controller('hooks')
export class HooksController {
  constructor(private readonly hooks: HooksService) {}

  /** 202 with the run when the event matches the trigger's filter rules, 200 `matched: false` when not. */
  @Public()
  @Post(':triggerUuid')
  @ApiBody({
    description:
      "The event: any JSON up to API_BODY_LIMIT_BYTES and 31 levels, matched against the trigger's filter_rules (422 EXPRESSION_BUDGET_EXCEEDED when a rule would do more work than its budget; 503 WEBHOOKS_BUSY when the threads that check deliveries are all busy with WEBHOOK_CHECK_QUEUE waiting, or a check runs past WEBHOOK_CHECK_TIME_LIMIT_MS)",
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiHeader({
    name: 'X-Stepwise-Signature',
    required: false,
    description:
      't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the trigger secret: refused when older than WEBHOOK_TOLERANCE_SECONDS or seen before',
  })
  @ApiHeader({
    name: 'X-Stepwise-Secret',
    required: false,
    description: 'The trigger secret itself: the weaker alternative (it can be replayed)',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'A repeated delivery with the same key (or X-Delivery-Id) gets the same run',
  })
  @ApiHeader({ name: 'X-Delivery-Id', required: false })
  @ApiAnswers(200, 'HookDelivery', 202, 400, 404, 413, 422, 503)
  @HttpCode(200)
  async deliver(@Param('triggerUuid') triggerUuid: string, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const outcome = await this.hooks.deliver(triggerUuid, {
      headers: request.headers,
      rawBody: rawBodyOf(request),
      // Read whole but not parsed (create-app mounts the raw parser on /hooks): the delivery pool parses it.
      json: Buffer.isBuffer(request.body),
    });
    if (outcome.matched) response.status(202);
    return outcome;
  }
}

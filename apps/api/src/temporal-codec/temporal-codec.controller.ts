import { Body, Controller, Delete, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { SecretBox } from '@app/security';
import {
  bearerKey,
  clearedKeyCookie,
  CurrentUser,
  keyCookie,
  KeyCookieAccepted,
  keyCookieMaxAge,
  KEY_COOKIE_MAX_AGE_SECONDS,
  type AuthenticatedUser,
} from '../auth';
import { ApiAnswers } from '../common/openapi';
import { TemporalCodecService } from './temporal-codec.service';

const payloads: SchemaObject = {
  type: 'object',
  required: ['payloads'],
  properties: {
    payloads: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          metadata: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
          data: { type: 'string', format: 'byte' },
        },
      },
    },
  },
};

const sessionBody: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_age_seconds: { type: 'integer', minimum: 60, maximum: KEY_COOKIE_MAX_AGE_SECONDS, default: KEY_COOKIE_MAX_AGE_SECONDS },
  },
};

/** Temporal's codec-server protocol (the Web UI's "codec endpoint"), CORS set up in create-app. */
@ApiTags('temporal-codec')
@ApiBearerAuth()
@Controller('temporal-codec')
export class TemporalCodecController {
  constructor(
    private readonly codec: TemporalCodecService,
    private readonly box: SecretBox,
  ) {}

  @Post('decode')
  @KeyCookieAccepted()
  @HttpCode(200)
  @ApiOperation({ summary: "Decrypts the payloads of the key's own runs; any other payload comes back as it was sent" })
  @ApiBody({ schema: payloads })
  @ApiAnswers(200, payloads, 400, 413)
  decode(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.codec.decode(user.userId, body);
  }

  @Post('encode')
  @KeyCookieAccepted()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Encrypts payloads (what the Web UI sends a workflow); they belong to no workflow, so decode leaves them encrypted',
  })
  @ApiBody({ schema: payloads })
  @ApiAnswers(200, payloads, 400, 413)
  encode(@Body() body: unknown) {
    return this.codec.encode(body);
  }

  @Post('session')
  @HttpCode(204)
  @ApiOperation({
    summary: "Gives this browser a cookie (HttpOnly, only sent to these routes) holding the key, sealed: the Web UI's codec calls send it",
  })
  @ApiBody({ schema: sessionBody })
  @ApiAnswers(204, null, 400)
  openSession(@Req() request: Request, @Res({ passthrough: true }) response: Response, @Body() body: unknown) {
    const maxAgeSeconds = keyCookieMaxAge(body);
    // The guard accepted a Bearer key on this route (it takes no cookie): seal that one.
    response.setHeader(
      'Set-Cookie',
      keyCookie(this.box, bearerKey(request.header('authorization'))!, { secure: request.protocol === 'https', maxAgeSeconds }),
    );
  }

  @Delete('session')
  @KeyCookieAccepted()
  @HttpCode(204)
  @ApiOperation({ summary: "Removes this browser's codec cookie" })
  @ApiAnswers(204, null)
  closeSession(@Res({ passthrough: true }) response: Response) {
    response.setHeader('Set-Cookie', clearedKeyCookie());
  }
}

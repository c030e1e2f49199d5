import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth';
import { ReadinessService } from './readiness.service';

const readinessSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    checks: {
      type: 'object',
      description: '"ok", or what failed',
      properties: { database: { type: 'string' }, temporal: { type: 'string' }, worker: { type: 'string' } },
    },
  },
};

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Public()
  @Get('live')
  @ApiOperation({ summary: 'The process is up (for restart decisions: checks nothing else)' })
  @ApiResponse({ status: 200, schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } } })
  live() {
    return { status: 'ok' };
  }

  @Public()
  @Get(['ready', ''])
  @ApiOperation({
    summary: 'Ready to take runs: MySQL answers, Temporal answers, and a worker polls the task queue (GET /health is the same)',
  })
  @ApiResponse({ status: 200, schema: readinessSchema })
  @ApiResponse({ status: 503, schema: readinessSchema })
  async ready(@Res({ passthrough: true }) response: Response) {
    const { ready, checks } = await this.readiness.check();
    if (!ready) response.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: ready ? 'ok' : 'unavailable', checks };
  }
}

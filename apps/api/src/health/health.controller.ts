import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../auth';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Public()
  @Get()
  async health(@Res({ passthrough: true }) response: Response) {
    const database = await this.dataSource.query('SELECT 1').then(() => 'ok', () => 'unavailable');
    if (database !== 'ok') response.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: database === 'ok' ? 'ok' : 'degraded', checks: { database } };
  }
}

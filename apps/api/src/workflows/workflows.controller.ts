import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { paginationOf } from '../common/pagination';
import { WorkflowsService } from './workflows.service';

@ApiTags('workflows')
@ApiBearerAuth()
@Controller('workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Post()
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.workflows.create(user.userId, body);
  }

  @Get()
  list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, unknown>) {
    return this.workflows.list(user.userId, paginationOf(query));
  }

  @Post('import')
  async import(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Res({ passthrough: true }) response: Response) {
    const { created, workflow } = await this.workflows.import(user.userId, body);
    response.status(created ? 201 : 200);
    return workflow;
  }

  @Get(':uuid')
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.get(user.userId, uuid);
  }

  @Get(':uuid/details')
  details(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.details(user.userId, uuid);
  }

  @Get(':uuid/export')
  export(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.export(user.userId, uuid);
  }

  @Patch(':uuid')
  update(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.workflows.update(user.userId, uuid, body);
  }

  @Delete(':uuid')
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.remove(user.userId, uuid);
  }
}

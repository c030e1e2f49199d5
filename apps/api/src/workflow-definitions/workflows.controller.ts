import { Put, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { WorkflowsService } from '@app/definitions';
import { DomainError, ErrorCode } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody, ApiPaged } from '../common/openapi';
import { paginationOf } from '../common/pagination';
import { WorkflowChanges } from './workflow-changes.service';

@ApiTags('workflows')
@ApiBearerAuth()
@Controller('workflows')
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly changes: WorkflowChanges,
  ) {}

  @Post()
  @ApiJsonBody('NewWorkflow')
  @ApiAnswers(201, 'WorkflowWithDetails', 400, 409, 413, 422)
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.workflows.create(user.userId, body);
  }

  @Get()
  @ApiPaged()
  @ApiAnswers(200, 'WorkflowPage', 422)
  list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, unknown>) {
    return this.workflows.list(user.userId, paginationOf(query));
  }

  @Post('import')
  @ApiJsonBody('WorkflowDocument')
  @ApiAnswers(201, 'WorkflowWithDetails', 200, 400, 409, 413, 422)
  async import(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Res({ passthrough: true }) response: Response) {
    const { created, workflow } = await this.workflows.import(user.userId, body);
    response.status(created ? 201 : 200);
    return workflow;
  }

  @Get(':uuid')
  @ApiAnswers(200, 'WorkflowModel', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.get(user.userId, uuid);
  }

  @Get(':uuid/details')
  @ApiAnswers(200, 'WorkflowWithDetails', 404)
  details(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.details(user.userId, uuid);
  }

  @Get(':uuid/export')
  @ApiAnswers(200, 'WorkflowDocument', 404, 422)
  export(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Query('format') format: string | undefined) {
    if (format === 'agentic') return this.workflows.exportAgentic(user.userId, uuid);
    if (format !== undefined && format !== 'stepwise') {
      throw new DomainError(
        ErrorCode.ValidationFailed,
        'format must be "stepwise" (the default) or "agentic" (the agentic document format: nodes and edges)',
        { field: 'format' },
      );
    }
    return this.workflows.export(user.userId, uuid);
  }

  @Patch(':uuid')
  @ApiJsonBody('WorkflowPatch')
  @ApiAnswers(200, 'WorkflowModel', 400, 404, 422)
  update(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.changes.update(user.userId, uuid, body);
  }

  @Put(':uuid/graph')
  @ApiJsonBody('Graph')
  @ApiAnswers(200, 'WorkflowWithDetails', 400, 404, 422)
  setGraph(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.workflows.setGraph(user.userId, uuid, body);
  }

  @Delete(':uuid/graph')
  @ApiAnswers(200, 'WorkflowWithDetails', 404, 422)
  removeGraph(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.setGraph(user.userId, uuid, null);
  }

  @Post(':uuid/rotate-notify-secret')
  @ApiAnswers(
    201,
    {
      type: 'object',
      properties: {
        workflow_uuid: { type: 'string', format: 'uuid' },
        notify_secret: { type: 'string', description: 'Shown once: verify notifications with it (Standard Webhooks)' },
      },
    },
    404,
  )
  rotateNotifySecret(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.workflows.rotateNotifySecret(user.userId, uuid);
  }

  @Delete(':uuid')
  @HttpCode(204)
  @ApiAnswers(204, null, 404)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.changes.remove(user.userId, uuid);
  }
}

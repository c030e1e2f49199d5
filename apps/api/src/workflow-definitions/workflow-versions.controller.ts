import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { DefinitionVersions } from '@app/definitions';
import { VERSION_RESTORE_BODY } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody, ApiPaged } from '../common/openapi';
import { paginationOf } from '../common/pagination';

/** A workflow's versions: every save that changed it, listed, read, compared and restored. */
@ApiTags('workflows')
@ApiBearerAuth()
@Controller('workflows/:uuid/versions')
export class WorkflowVersionsController {
  constructor(private readonly versions: DefinitionVersions) {}

  @Get()
  @ApiPaged()
  @ApiAnswers(200, 'WorkflowVersionPage', 404, 422)
  list(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Query() query: Record<string, unknown>) {
    const { limit, cursor } = paginationOf(query);
    return this.versions.list(user.userId, uuid, { limit, ...(cursor ? { cursor } : {}) });
  }

  @Get(':version')
  @ApiAnswers(200, 'WorkflowVersion', 404, 422)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Param('version') version: string) {
    return this.versions.get(user.userId, uuid, version);
  }

  @Get(':from/diff/:to')
  @ApiAnswers(200, 'WorkflowVersionDiff', 404, 422)
  diff(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Param('from') from: string, @Param('to') to: string) {
    return this.versions.diff(user.userId, uuid, from, to);
  }

  @Post(':version/restore')
  @HttpCode(200)
  @ApiJsonBody(VERSION_RESTORE_BODY)
  @ApiAnswers(200, 'WorkflowVersionRestored', 404, 409, 422)
  restore(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Param('version') version: string, @Body() body: unknown) {
    return this.versions.restore(user.userId, uuid, version, body);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { BUILTIN_TOOLS, TOOL_BODY } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody } from '../common/openapi';
import { ToolsService } from './tools.service';

@ApiTags('tools')
@ApiBearerAuth()
@Controller('tools')
export class ToolsController {
  constructor(private readonly tools: ToolsService) {}

  @Post()
  @ApiJsonBody(TOOL_BODY)
  @ApiAnswers(201, 'Tool', 400, 409, 422)
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.tools.create(user.userId, body);
  }

  /** The user's registered tools, and the built-ins every agent may use. */
  @Get()
  @ApiAnswers(200, 'ToolList')
  async list(@CurrentUser() user: AuthenticatedUser) {
    const items = await this.tools.list(user.userId);
    return { items, total: items.length, next_cursor: null, builtin: BUILTIN_TOOLS };
  }

  @Get(':uuid')
  @ApiAnswers(200, 'Tool', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.tools.get(user.userId, uuid);
  }

  @Delete(':uuid')
  @ApiAnswers(204, null, 404)
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.tools.remove(user.userId, uuid);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { BUILTIN_TOOLS } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ToolsService } from './tools.service';

@ApiTags('tools')
@ApiBearerAuth()
@Controller('tools')
export class ToolsController {
  constructor(private readonly tools: ToolsService) {}

  @Post()
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.tools.create(user.userId, body);
  }

  /** The user's registered tools, and the built-ins every agent may use. */
  @Get()
  async list(@CurrentUser() user: AuthenticatedUser) {
    return { items: await this.tools.list(user.userId), builtin: BUILTIN_TOOLS };
  }

  @Get(':uuid')
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.tools.get(user.userId, uuid);
  }

  @Delete(':uuid')
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.tools.remove(user.userId, uuid);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { McpToolDiscovery } from '@app/definitions';
import { MCP_SERVER_BODY, MCP_SERVER_PATCH_BODY } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers, ApiJsonBody } from '../common/openapi';
import { McpServersService } from './mcp-servers.service';

const list = <T>(items: T[]) => ({ items, total: items.length, next_cursor: null });

@ApiTags('mcp-servers')
@ApiBearerAuth()
@Controller()
export class McpServersController {
  constructor(
    private readonly servers: McpServersService,
    private readonly discovery: McpToolDiscovery,
  ) {}

  @Post('mcp-servers')
  @ApiJsonBody(MCP_SERVER_BODY)
  @ApiAnswers(201, 'McpServer', 400, 409, 422)
  create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return this.servers.create(user.userId, body);
  }

  @Get('mcp-servers')
  @ApiAnswers(200, 'McpServerList')
  async list(@CurrentUser() user: AuthenticatedUser) {
    return list(await this.servers.list(user.userId));
  }

  @Get('mcp-servers/:uuid')
  @ApiAnswers(200, 'McpServer', 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.servers.get(user.userId, uuid);
  }

  @Patch('mcp-servers/:uuid')
  @ApiJsonBody(MCP_SERVER_PATCH_BODY)
  @ApiAnswers(200, 'McpServer', 400, 404, 409, 422)
  update(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string, @Body() body: unknown) {
    return this.servers.update(user.userId, uuid, body);
  }

  @Delete('mcp-servers/:uuid')
  @ApiAnswers(204, null, 404)
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return this.servers.remove(user.userId, uuid);
  }

  /** The server's tools, listed live (502 MCP_SERVER_UNAVAILABLE when it cannot answer). */
  @Get('mcp-servers/:uuid/tools')
  @ApiAnswers(200, 'McpToolList', 404, 502)
  async tools(@CurrentUser() user: AuthenticatedUser, @Param('uuid') uuid: string) {
    return list(await this.discovery.tools(user.userId, uuid));
  }

  /** The tools of every server of the user; servers that cannot answer are in `errors`. */
  @Get('mcp-tools')
  @ApiAnswers(200, 'McpToolList')
  async allTools(@CurrentUser() user: AuthenticatedUser) {
    const { items, errors } = await this.discovery.allTools(user.userId);
    return { ...list(items), errors };
  }
}

// HTTP shims over the MCP tools, for clients without an MCP library: the tool list, and a call
// answering {result: {structuredContent}}; a refused call answers the coded 4xx as REST does.
import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { DomainError, ErrorCode, isJsonObject } from '@app/domain';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { ApiAnswers } from '../common/openapi';
import { StepwiseToolsService } from './stepwise-tools.service';

@ApiTags('mcp')
@ApiBearerAuth()
@Controller('mcp')
export class McpShimController {
  constructor(private readonly tools: StepwiseToolsService) {}

  @Get('tools')
  @ApiAnswers(200, {
    type: 'object',
    properties: { tools: { type: 'array', items: { type: 'object', description: 'name, title, description, inputSchema, outputSchema' } } },
  })
  list() {
    return { tools: this.tools.list() };
  }

  /** `{name, arguments}`; some clients send the name as `tool_name` instead. */
  @Post('invoke')
  @HttpCode(200)
  @ApiBody({ schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, arguments: { type: 'object' } } } })
  @ApiAnswers(
    200,
    { type: 'object', properties: { result: { type: 'object', properties: { structuredContent: { type: 'object' } } } } },
    400,
    404,
    409,
    422,
  )
  async invoke(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    if (!isJsonObject(body)) {
      throw new DomainError(ErrorCode.ValidationFailed, 'body must be {"name": <tool>, "arguments": {...}}', { field: 'body' });
    }
    const { name, tool_name, arguments: args } = body;
    return { result: { structuredContent: await this.tools.call(user.userId, name ?? tool_name, args ?? {}) } };
  }
}

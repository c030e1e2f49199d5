// POST/GET/DELETE /mcp: the Streamable HTTP transport, stateless (ARCHITECTURE.md says why): each POST
// gets a server and transport of its own, bound to the API key's user, closed with the response.
import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { CurrentUser, type AuthenticatedUser } from '../auth';
import { createMcpServer } from './mcp-server';
import { StepwiseToolsService } from './stepwise-tools.service';

/** JSON-RPC's error envelope, for what the transport never sees. */
const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly tools: StepwiseToolsService) {}

  @Post()
  async post(@CurrentUser() user: AuthenticatedUser, @Req() request: Request, @Res() response: Response): Promise<void> {
    const server = createMcpServer(this.tools, user.userId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response, request.body);
    } catch (error) {
      if (!response.headersSent) response.status(500).json(rpcError(-32603, 'Internal error'));
      throw error;
    }
  }

  /** Stateless: no stream for server-initiated messages and no session to end (the spec's 405 for both). */
  @Get()
  @Delete()
  methodNotAllowed(@Res() response: Response): void {
    response
      .status(405)
      .set('Allow', 'POST')
      .json(rpcError(-32000, 'Method not allowed: this MCP server is stateless, send every message with POST'));
  }
}

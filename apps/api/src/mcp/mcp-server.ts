// The MCP protocol front: an SDK `Server` (low-level, so tools keep their raw JSON Schemas) whose tools
// are StepwiseToolsService's, run for one user.
import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { StepwiseToolsService } from './stepwise-tools.service';
import { errorResult, successResult, toolErrorOf } from './tool-results';

const INSTRUCTIONS =
  'stepwise runs durable LLM workflows. list_step_types and get_step_type tell you how to write steps, create_workflow saves one, run_workflow starts a run, get_workflow_run follows it.';

const logger = new Logger('mcp');

export function createMcpServer(tools: StepwiseToolsService, userId: string): Server {
  const server = new Server(
    { name: 'stepwise', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() as Tool[] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return successResult(await tools.call(userId, request.params.name, request.params.arguments));
    } catch (error) {
      if (!toolErrorOf(error)) logger.error(`tool ${request.params.name} failed: ${(error as Error)?.stack ?? String(error)}`);
      return errorResult(error);
    }
  });
  return server;
}

// OpenAPI components of MCP servers and their tools; the request bodies are the domain's own (REQUEST_BODIES).
import type { SchemaObject } from '@nestjs/swagger';
import { ref } from '../common/openapi';

const uuid: SchemaObject = { type: 'string', format: 'uuid' };
const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const names = (what: string): SchemaObject => ({
  type: 'array',
  items: { type: 'string' },
  description: `The ${what} set (their values are sealed and never returned)`,
});
const list = (item: string, extra: Record<string, SchemaObject> = {}): SchemaObject => ({
  type: 'object',
  properties: {
    items: { type: 'array', items: ref(item) },
    total: { type: 'integer' },
    next_cursor: { type: 'string', nullable: true },
    ...extra,
  },
});

export function mcpComponents(): Record<string, SchemaObject> {
  return {
    McpServer: {
      type: 'object',
      properties: {
        uuid,
        name: { type: 'string' },
        transport: { type: 'string', enum: ['streamable_http', 'stdio'] },
        url: { type: 'string', nullable: true },
        header_names: names('headers'),
        command: { type: 'string', nullable: true },
        args: { type: 'array', items: { type: 'string' } },
        env_names: names('environment variables'),
        timeout_ms: { type: 'integer' },
        created_at: timestamp,
        updated_at: timestamp,
      },
    },
    McpServerList: list('McpServer'),
    McpTool: {
      type: 'object',
      properties: {
        name: { type: 'string', description: "What an agent step lists in its tools: '<server>.<tool>'" },
        server: { type: 'string' },
        server_uuid: uuid,
        tool: { type: 'string', description: "The tool's name on its server" },
        model_name: { type: 'string', description: 'The name the model is offered (^[a-zA-Z0-9_-]{1,64}$)' },
        description: { type: 'string' },
        input_schema: { type: 'object' },
        annotations: { type: 'object', nullable: true },
      },
    },
    McpToolList: list('McpTool', {
      errors: {
        type: 'array',
        description: 'GET /mcp-tools: servers that could not be listed',
        items: {
          type: 'object',
          properties: { server: { type: 'string' }, server_uuid: uuid, code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    }),
  };
}

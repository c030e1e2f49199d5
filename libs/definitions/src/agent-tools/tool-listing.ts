// What list_tools answers: the tools an agent may name, from every source. A source is one function, so a
// new kind of tool is one more entry in `sources`.
import { Injectable } from '@nestjs/common';
import { BUILTIN_TOOLS, END_TOOL } from '@app/domain';
import { ToolRepository } from '@app/persistence';
import { McpToolDiscovery } from './mcp-tool-discovery';

export interface ListedTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** builtin (every agent may use it), registered (POST /tools), mcp (a registered MCP server's, named `<server>.<tool>`) */
  source: string;
}

export type ToolSource = (userId: string) => Promise<ListedTool[]>;

@Injectable()
export class ToolListing {
  private readonly sources: ToolSource[];

  constructor(registry: ToolRepository, mcpServers: McpToolDiscovery) {
    this.sources = [
      async () =>
        [...BUILTIN_TOOLS, END_TOOL].map(({ name, description, parameters }) => ({ name, description, parameters, source: 'builtin' })),
      async (userId) =>
        (await registry.list(userId)).map(({ name, description, parameters }) => ({ name, description, parameters, source: 'registered' })),
      // Servers that cannot answer now are left out: list_tools lists what an agent could use.
      async (userId) =>
        (await mcpServers.allTools(userId)).items.map(({ name, description, input_schema }) => ({
          name,
          description,
          parameters: input_schema,
          source: 'mcp',
        })),
    ];
  }

  async list(userId: string): Promise<ListedTool[]> {
    return (await Promise.all(this.sources.map((source) => source(userId)))).flat();
  }
}

// What list_tools answers: the tools an agent may name, from every source. A source is one function, so a
// new kind of tool (MCP servers' tools, say) is one more entry in `sources`.
import { Injectable } from '@nestjs/common';
import { BUILTIN_TOOLS, END_TOOL } from '@app/domain';
import { ToolsService } from '../tools/tools.service';

export interface ListedTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** builtin (every agent may use it), registered (POST /tools)... */
  source: string;
}

export type ToolSource = (userId: string) => Promise<ListedTool[]>;

@Injectable()
export class ToolListing {
  private readonly sources: ToolSource[];

  constructor(registry: ToolsService) {
    this.sources = [
      async () => [...BUILTIN_TOOLS, END_TOOL].map(({ name, description, parameters }) => ({ name, description, parameters, source: 'builtin' })),
      async (userId) => (await registry.list(userId)).map(({ name, description, parameters }) => ({ name, description, parameters, source: 'registered' })),
    ];
  }

  async list(userId: string): Promise<ListedTool[]> {
    return (await Promise.all(this.sources.map((source) => source(userId)))).flat();
  }
}

// The tools the assistant's model may call while it writes a workflow: stepwise's own MCP tools, called
// in-process through the service the MCP server and its HTTP shims use.
import { Injectable } from '@nestjs/common';
import type { AssistantToolCall, ToolSpec } from '@app/contracts';
import { DomainError } from '@app/domain';
import { StepwiseToolsService } from '../../../api/src/mcp/stepwise-tools.service';
import { ToolListing } from '../../../api/src/mcp/tool-listing';

const ASSISTANT_TOOLS = ['list_step_types', 'get_step_type', 'list_tools', 'get_workflow'];

@Injectable()
export class AssistantTools {
  constructor(
    private readonly tools: StepwiseToolsService,
    private readonly listing: ToolListing,
  ) {}

  specs(): ToolSpec[] {
    return this.tools
      .list()
      .filter((tool) => ASSISTANT_TOOLS.includes(tool.name))
      .map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema }));
  }

  /** The tool's answer as the model reads it; a refused or malformed call answers its coded error. */
  async call(userId: string, call: AssistantToolCall): Promise<string> {
    try {
      if (!ASSISTANT_TOOLS.includes(call.name)) throw new Error(`no tool named ${call.name}; the tools are ${ASSISTANT_TOOLS.join(', ')}`);
      return JSON.stringify(await this.tools.call(userId, call.name, JSON.parse(call.arguments || '{}')));
    } catch (error) {
      const coded = error instanceof DomainError ? { code: error.code, field: error.details.field } : { code: 'TOOL_CALL_FAILED' };
      return JSON.stringify({ error: { ...coded, message: (error as Error).message } });
    }
  }

  /** Names an agent step may list in its tools: built-ins and the user's registered tools. */
  async names(userId: string): Promise<Set<string>> {
    return new Set((await this.listing.list(userId)).map((tool) => tool.name));
  }
}

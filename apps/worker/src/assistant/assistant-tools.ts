// The tools the assistant's model may call while it writes a workflow: four of stepwise's own read-only tools,
// the same definitions (names, descriptions, input schemas) and the same services the API's MCP server offers.
import { Injectable } from '@nestjs/common';
import type { AssistantToolCall, ToolSpec } from '@app/contracts';
import { catalogTools, getWorkflowTool, StepwiseToolSet, ToolListing, WorkflowsService } from '@app/definitions';
import { DomainError } from '@app/domain';

@Injectable()
export class AssistantTools {
  private readonly tools: StepwiseToolSet;

  constructor(
    workflows: WorkflowsService,
    private readonly listing: ToolListing,
  ) {
    // In the order the MCP server lists them.
    this.tools = new StepwiseToolSet([getWorkflowTool(workflows), ...catalogTools(listing)]);
  }

  specs(): ToolSpec[] {
    return this.tools.list().map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema }));
  }

  /** The tool's answer as the model reads it; a refused or malformed call answers its coded error. */
  async call(userId: string, call: AssistantToolCall): Promise<string> {
    try {
      const names = this.specs().map((tool) => tool.name);
      if (!names.includes(call.name)) throw new Error(`no tool named ${call.name}; the tools are ${names.join(', ')}`);
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

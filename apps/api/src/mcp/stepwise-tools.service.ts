// Stepwise's own tools, one implementation for every front: the MCP server (/mcp), the HTTP shims
// (/api/v1/mcp/tools and /invoke) and in-process callers. Each tool calls the service its REST route calls.
import { Injectable, Optional } from '@nestjs/common';
import { DomainError, ErrorCode, requireJsonObject, schemaIssues, throwIssues } from '@app/domain';
import { AssistantTurns } from '../assistant/assistant-turns';
import { RunsService } from '../runs/runs.service';
import { SchedulesService } from '../schedules/schedules.service';
import { WorkflowsService } from '../workflow-definitions/workflows.service';
import { assistantTools } from './assistant-tools';
import { catalogTools } from './catalog-tools';
import { runTools } from './run-tools';
import type { StepwiseTool, ToolDescriptor, ToolResult } from './stepwise-tool';
import { ToolListing } from './tool-listing';
import { workflowTools } from './workflow-tools';

/** Views carry Dates; callers get plain JSON, the same the REST API sends. */
const asJson = (value: unknown): ToolResult => JSON.parse(JSON.stringify(value ?? {})) as ToolResult;

@Injectable()
export class StepwiseToolsService {
  private readonly tools: Map<string, StepwiseTool>;

  /** `turns`: the API's assistant (absent in the worker, whose assistant calls these tools itself). */
  constructor(workflows: WorkflowsService, schedules: SchedulesService, runs: RunsService, listing: ToolListing, @Optional() turns?: AssistantTurns) {
    const tools = [...workflowTools(workflows, schedules), ...runTools(runs), ...catalogTools(listing), ...(turns ? assistantTools(turns) : [])];
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  list(): ToolDescriptor[] {
    return [...this.tools.values()].map(({ name, title, description, inputSchema, outputSchema }) => ({ name, title, description, inputSchema, outputSchema }));
  }

  /** Runs a tool for the user; a refused call throws the coded DomainError its REST route would. */
  async call(userId: string, name: unknown, args: unknown = {}): Promise<ToolResult> {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) throw new DomainError(ErrorCode.NotFound, `No tool named ${String(name)}: list them with tools/list or GET /api/v1/mcp/tools`, { field: 'name' });
    const fields = requireJsonObject(args, { field: 'arguments' });
    if (!tool.parsedByService) throwIssues(schemaIssues(tool.inputSchema, fields, ''));
    return asJson(await tool.run(userId, fields));
  }
}

// Stepwise's own tools, run the same way whoever offers them: the API's MCP server and its HTTP shims, and the
// worker's assistant. Each tool calls the service its REST route calls.
import { DomainError, ErrorCode, requireJsonObject, schemaIssues, throwIssues } from '@app/domain';
import type { StepwiseTool, ToolDescriptor, ToolResult } from './stepwise-tool';

/** Views carry Dates; callers get plain JSON, the same the REST API sends. */
const asJson = (value: unknown): ToolResult => JSON.parse(JSON.stringify(value ?? {})) as ToolResult;

export class StepwiseToolSet {
  private readonly tools: Map<string, StepwiseTool>;

  constructor(tools: StepwiseTool[]) {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  list(): ToolDescriptor[] {
    return [...this.tools.values()].map(({ name, title, description, inputSchema, outputSchema }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
    }));
  }

  /** Runs a tool for the user; a refused call throws the coded DomainError its REST route would. */
  async call(userId: string, name: unknown, args: unknown = {}): Promise<ToolResult> {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool)
      throw new DomainError(ErrorCode.NotFound, `No tool named ${String(name)}: list them with tools/list or GET /api/v1/mcp/tools`, {
        field: 'name',
      });
    const fields = requireJsonObject(args, { field: 'arguments' });
    if (!tool.parsedByService) throwIssues(schemaIssues(tool.inputSchema, fields, ''));
    return asJson(await tool.run(userId, fields));
  }
}

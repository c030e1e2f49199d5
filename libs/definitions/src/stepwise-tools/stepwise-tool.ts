// What a stepwise tool is, for every front that offers it: the MCP server (/mcp), the HTTP shims
// (/api/v1/mcp/tools, /mcp/invoke) and in-process callers. Schemas are plain JSON Schema (draft-07).
import { RUN_STATUSES } from '@app/contracts';

export type JsonSchema = Record<string, unknown>;
export type ToolArguments = Record<string, unknown>;
export type ToolResult = Record<string, unknown>;

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  /** The success shape, or a refused call's coded error: an MCP client checks structuredContent against it either way. */
  outputSchema: JsonSchema;
}

export interface StepwiseTool extends ToolDescriptor {
  /**
   * True when the service the tool calls validates the whole input itself, with codes more precise than a
   * schema check gives (a workflow: UNKNOWN_STEP_TYPE, FORWARD_STEP_REFERENCE...).
   */
  parsedByService?: boolean;
  /** Runs for the user of the API key; throws coded DomainErrors when refused. */
  run(userId: string, args: ToolArguments): Promise<unknown>;
}

/** What a refused call answers: the coded error the REST API would give. */
export const TOOL_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Machine-readable, as in the REST API (NOT_FOUND, VALIDATION_FAILED...)' },
    message: { type: 'string' },
    field: { type: 'string', description: 'The offending argument, e.g. steps[0].system_prompt' },
    details: { type: 'object' },
  },
};

/** An MCP output schema must be an object schema; a refused call's structured content must match it too. */
export const outputOf = (success: JsonSchema): JsonSchema => ({ type: 'object', anyOf: [success, TOOL_ERROR_SCHEMA] });

export const objectSchema = (properties: JsonSchema, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

export const uuidArgument = (description: string): JsonSchema => ({ type: 'string', format: 'uuid', description });

export const PAGINATION_ARGUMENTS: JsonSchema = {
  limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  cursor: { type: 'string', description: 'The next_cursor of the page before' },
};

export const pageOf = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['items', 'total', 'limit', 'next_cursor'],
  properties: {
    items: { type: 'array', items: item },
    total: { type: 'integer' },
    limit: { type: 'integer' },
    next_cursor: { type: ['string', 'null'] },
  },
});

/** A workflow as GET /workflows/{uuid} answers it; only what a caller relies on is pinned down. */
export const WORKFLOW_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['uuid', 'name', 'steps'],
  properties: { uuid: { type: 'string' }, name: { type: 'string' }, is_active: { type: 'boolean' }, steps: { type: 'array' } },
};

/** A run as GET /runs/{uuid} answers it (steps, outputs, errors, tokens). */
export const RUN_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['uuid', 'status'],
  properties: {
    uuid: { type: 'string' },
    workflow_uuid: { type: 'string' },
    status: { enum: [...RUN_STATUSES] },
    error_message: { type: ['string', 'null'] },
    steps: { type: 'array' },
  },
};

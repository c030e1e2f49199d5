import { DomainError, ErrorCode } from '../errors';
import { schemaProblemText, userSchemaProblem } from '../definition/json-schema';
import { SCHEMA_LIMITS, type SchemaLimits } from '../definition/schema-bounds';
import { requestBody } from '../request-body';
import { BUILTIN_TOOL_NAMES } from './builtin-tools';

export interface ToolInput {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  transport: 'http';
  endpoint_url: string;
  timeout_ms: number;
  side_effect_free: boolean;
}

export const TOOL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'parameters', 'endpoint_url'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string', minLength: 1, maxLength: 2000 },
    parameters: { type: 'object' },
    transport: { enum: ['http'] },
    endpoint_url: { type: 'string', pattern: '^https?://' },
    timeout_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
    side_effect_free: {
      type: 'boolean',
      default: false,
      description: 'Calling it changes nothing anywhere (a read): a replay may call it again when its record has no identical call',
    },
  },
};

export const TOOL_BODY = requestBody('NewTool', TOOL_SCHEMA, (body) => body as Partial<ToolInput>);

/** POST /tools: a tool the worker calls by POSTing the model's arguments to `endpoint_url`. */
export function parseToolInput(input: unknown, limits: SchemaLimits = SCHEMA_LIMITS): ToolInput {
  const body = TOOL_BODY.parse(input);
  if (BUILTIN_TOOL_NAMES.includes(body.name!)) {
    throw new DomainError(ErrorCode.Conflict, `${body.name} is a built-in tool name`, { field: 'name' });
  }
  const problem = userSchemaProblem(body.parameters, limits);
  if (problem) throw new DomainError(problem.code, `parameters ${schemaProblemText(problem)}`, { field: 'parameters' });
  return {
    name: body.name!,
    description: body.description!,
    parameters: body.parameters!,
    transport: 'http',
    endpoint_url: body.endpoint_url!,
    timeout_ms: body.timeout_ms ?? 30_000,
    side_effect_free: body.side_effect_free === true,
  };
}

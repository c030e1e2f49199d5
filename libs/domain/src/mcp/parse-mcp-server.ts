// POST and PATCH /mcp-servers: one validator for both (a patch is merged over the stored server, then
// checked whole), so the rules per transport cannot drift apart.
import { MCP_TRANSPORTS, type McpTransportKind } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';
import { requestBody } from '../request-body';
import { MCP_SERVER_NAME_PATTERN } from './mcp-tool-names';

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

export interface McpServerInput {
  name: string;
  transport: McpTransportKind;
  url: string | null;
  headers: Record<string, string>;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  timeout_ms: number;
}

const strings = { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 8192 } };
const fields = {
  name: { type: 'string', pattern: MCP_SERVER_NAME_PATTERN.source, description: "Unique per user; steps name its tools '<name>.<tool>'" },
  transport: { enum: [...MCP_TRANSPORTS] },
  url: { type: 'string', pattern: '^https?://', maxLength: 2000, description: 'streamable_http: the endpoint' },
  headers: { ...strings, description: 'streamable_http: sent with every request (e.g. Authorization); sealed at rest, never returned' },
  command: { type: 'string', minLength: 1, maxLength: 1000, description: 'stdio: the executable the worker starts (MCP_STDIO=on)' },
  args: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } },
  env: { ...strings, description: 'stdio: the environment of the process; sealed at rest, never returned' },
  timeout_ms: { type: 'integer', minimum: 100, maximum: 600_000, description: 'One call or discovery (default 30000)' },
};

export const MCP_SERVER_SCHEMA = { type: 'object', additionalProperties: false, required: ['name', 'transport'], properties: fields };
export const MCP_SERVER_PATCH_SCHEMA = { type: 'object', additionalProperties: false, minProperties: 1, properties: fields };
export const MCP_SERVER_BODY = requestBody('NewMcpServer', MCP_SERVER_SCHEMA, (body) => body as Partial<McpServerInput>);
export const MCP_SERVER_PATCH_BODY = requestBody('McpServerPatch', MCP_SERVER_PATCH_SCHEMA, (body) => body as Partial<McpServerInput>);

const TRANSPORT_FIELDS: Record<McpTransportKind, (keyof McpServerInput)[]> = {
  streamable_http: ['url', 'headers'],
  stdio: ['command', 'args', 'env'],
};

/** A new server, or a stored one with a patch merged over it; `stdioAllowed`: the operator's MCP_STDIO. */
export function parseMcpServerInput(input: unknown, stdioAllowed: boolean): McpServerInput {
  const body = MCP_SERVER_BODY.parse(input);
  const transport = body.transport!;
  const foreign = TRANSPORT_FIELDS[transport === 'stdio' ? 'streamable_http' : 'stdio'].find((field) => body[field] !== undefined);
  if (foreign)
    throw new DomainError(ErrorCode.ValidationFailed, `${foreign} does not apply to the ${transport} transport`, { field: foreign });
  const required = (field: 'url' | 'command'): string => {
    if (!body[field]) throw new DomainError(ErrorCode.ValidationFailed, `${field} is required for the ${transport} transport`, { field });
    return body[field];
  };
  const common = { name: body.name!, transport, timeout_ms: body.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS };
  if (transport === 'streamable_http')
    return { ...common, url: required('url'), headers: body.headers ?? {}, command: null, args: [], env: {} };
  if (!stdioAllowed) {
    throw new DomainError(
      ErrorCode.McpStdioDisabled,
      'stdio MCP servers start processes on the worker: an operator must allow them with MCP_STDIO=on',
      { field: 'transport' },
    );
  }
  return { ...common, url: null, headers: {}, command: required('command'), args: body.args ?? [], env: body.env ?? {} };
}

/** PATCH: the patch's own shape first, then the whole server it makes (the stored fields of its transport, the patch over them). */
export function parseMcpServerPatch(patch: unknown, current: McpServerInput, stdioAllowed: boolean): McpServerInput {
  const changes = MCP_SERVER_PATCH_BODY.parse(patch);
  const transport = changes.transport ?? current.transport;
  const kept: (keyof McpServerInput)[] = ['name', 'timeout_ms', ...(transport === current.transport ? TRANSPORT_FIELDS[transport] : [])];
  return parseMcpServerInput({ ...Object.fromEntries(kept.map((field) => [field, current[field]])), ...changes, transport }, stdioAllowed);
}

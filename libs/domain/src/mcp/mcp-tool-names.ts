// How agent steps name an MCP server's tools, and the name the model is offered for each. A step lists
// `<server>.<tool>` (registered and built-in tool names have no dot, so the dot says "MCP"); models only
// accept ^[a-zA-Z0-9_-]{1,64}$, so the model sees `<server>__<tool>`, with other characters turned into `_`
// and, when that changed anything or is too long, a short hash of the full name at the end so two names
// never meet. The worker maps the model's name back by computing it again from the step's list.
import { createHash } from 'node:crypto';

export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;
/** MCP tool names: 1-128 of letters, digits, `_`, `-`, `.` and `/` (what servers use in practice). */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_./-]{1,128}$/;
/** A step's tool entry naming an MCP tool: `<server>.<tool>`. */
export const MCP_QUALIFIED_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}\.[A-Za-z0-9_./-]{1,128}$/;

const MODEL_NAME_MAX = 64;
const SAFE = /^[A-Za-z0-9_-]+$/;

export interface McpToolName {
  server: string;
  tool: string;
}

/** `docs.search` -> {server: docs, tool: search}; null for a name without a dot (a registered or built-in tool). */
export function parseMcpToolName(name: string): McpToolName | null {
  const dot = name.indexOf('.');
  if (dot <= 0 || !MCP_QUALIFIED_NAME_PATTERN.test(name)) return null;
  return { server: name.slice(0, dot), tool: name.slice(dot + 1) };
}

export const qualifiedMcpToolName = ({ server, tool }: McpToolName): string => `${server}.${tool}`;

/** The name offered to the model for `<server>.<tool>`: safe for every provider, the same every time. */
export function modelToolName(name: McpToolName): string {
  const plain = `${name.server}__${name.tool}`;
  if (SAFE.test(plain) && plain.length <= MODEL_NAME_MAX) return plain;
  const hash = createHash('sha256').update(qualifiedMcpToolName(name)).digest('hex').slice(0, 8);
  return `${plain.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MODEL_NAME_MAX - hash.length - 1)}_${hash}`;
}

/** The name the model knows a step tool by: MCP tools mapped, other tools as they are. */
export function offeredToolName(stepToolName: string): string {
  const mcp = parseMcpToolName(stepToolName);
  return mcp ? modelToolName(mcp) : stepToolName;
}

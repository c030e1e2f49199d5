// MCP servers a user registered, as the worker and the API reach them: the plain connection settings
// (secrets revealed) and the tools a server lists. What both apps and the providers agree on.

interface McpServerBase {
  uuid: string;
  /** Unique per user; steps name a server's tools `<name>.<tool>`. */
  name: string;
  /** One call's limit (and each discovery's). */
  timeout_ms: number;
}

export interface McpHttpConnection extends McpServerBase {
  transport: 'streamable_http';
  url: string;
  /** Sent with every request (an Authorization secret, say): sealed at rest, never returned. */
  headers: Record<string, string>;
}

export interface McpStdioConnection extends McpServerBase {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Sealed at rest, never returned. */
  env: Record<string, string>;
}

export type McpConnection = McpHttpConnection | McpStdioConnection;
export const MCP_TRANSPORTS = ['streamable_http', 'stdio'] as const;
export type McpTransportKind = (typeof MCP_TRANSPORTS)[number];

/** A tool as an MCP server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}

/**
 * Lists a server's tools live. An abstract class so it is also the injection token: persistence's tool
 * manifests and the apps use it, the providers' MCP client pool implements it.
 */
export abstract class McpToolSource {
  abstract listTools(connection: McpConnection): Promise<McpToolInfo[]>;
}

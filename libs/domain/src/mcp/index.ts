export * from './mcp-tool-names';
export * from './parse-mcp-server';

export * from './mcp-server.entity';
export * from './mcp-server.repository';
export * from './mcp-tool-catalog';

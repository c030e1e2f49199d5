import { Module } from '@nestjs/common';
import { McpServersController } from './mcp-servers.controller';
import { McpServersService } from './mcp-servers.service';

/** MCP servers users register, and live discovery of their tools (the client side; ../mcp is stepwise's own server). */
@Module({
  controllers: [McpServersController],
  providers: [McpServersService],
  exports: [McpServersService],
})
export class McpServersModule {}

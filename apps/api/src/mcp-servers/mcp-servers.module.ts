import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { McpClientModule } from '@app/providers';
import { DefinitionServicesModule } from '../definition-services.module';
import { McpServersController } from './mcp-servers.controller';
import { McpServersService } from './mcp-servers.service';

/** MCP servers users register, and live discovery of their tools (the client side; ../mcp is stepwise's own server). */
@Module({
  imports: [PersistenceModule, McpClientModule, DefinitionServicesModule],
  controllers: [McpServersController],
  providers: [McpServersService],
})
export class McpServersModule {}

import { Module } from '@nestjs/common';
import { AssistantModule } from '../assistant/assistant.module';
import { DefinitionsModule } from '../definitions.module';
import { McpServersModule } from '../mcp-servers/mcp-servers.module';
import { RunsModule } from '../runs/runs.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { ToolsModule } from '../tools/tools.module';
import { McpShimController } from './mcp-shim.controller';
import { McpController } from './mcp.controller';
import { StepwiseToolsService } from './stepwise-tools.service';
import { ToolListing } from './tool-listing';

/** stepwise as an MCP server (/mcp) and seed 003's HTTP shims; StepwiseToolsService is exported for in-process callers. */
@Module({
  imports: [DefinitionsModule, RunsModule, ToolsModule, SchedulesModule, McpServersModule, AssistantModule],
  controllers: [McpController, McpShimController],
  providers: [StepwiseToolsService, ToolListing],
  exports: [StepwiseToolsService],
})
export class McpModule {}

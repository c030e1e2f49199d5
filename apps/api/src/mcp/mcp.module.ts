import { Module } from '@nestjs/common';
import { AssistantModule } from '../assistant/assistant.module';
import { DefinitionServicesModule } from '../definition-services.module';
import { RunsModule } from '../runs/runs.module';
import { EvaluationsModule } from '../evaluations/evaluations.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { McpShimController } from './mcp-shim.controller';
import { McpController } from './mcp.controller';
import { StepwiseToolsService } from './stepwise-tools.service';

/** stepwise as an MCP server (/mcp) and its HTTP shims (/mcp/tools, /mcp/invoke). */
@Module({
  imports: [DefinitionServicesModule, RunsModule, SchedulesModule, AssistantModule, EvaluationsModule],
  controllers: [McpController, McpShimController],
  providers: [StepwiseToolsService],
})
export class McpModule {}

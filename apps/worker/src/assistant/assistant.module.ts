import { Module } from '@nestjs/common';
import { EgressModule } from '../../../api/src/common/egress-guard';
import { StepwiseToolsService } from '../../../api/src/mcp/stepwise-tools.service';
import { ToolListing } from '../../../api/src/mcp/tool-listing';
import { McpServersService } from '../../../api/src/mcp-servers/mcp-servers.service';
import { RunsService } from '../../../api/src/runs/runs.service';
import { SchedulesService } from '../../../api/src/schedules/schedules.service';
import { TemporalModule } from '../../../api/src/temporal/temporal.module';
import { ToolsService } from '../../../api/src/tools/tools.service';
import { DefinitionStore } from '../../../api/src/workflow-definitions/definition-store.service';
import { StepSummaries } from '../../../api/src/workflow-definitions/step-summaries.service';
import { WorkflowsService } from '../../../api/src/workflow-definitions/workflows.service';
import { WorkerModule } from '../worker.module';
import { AssistantBases } from './assistant-bases';
import { AssistantModelService } from './assistant-model.service';
import { AssistantStagesService } from './assistant-stages.service';
import { AssistantStore } from './assistant-store';
import { AssistantTools } from './assistant-tools';

/**
 * The assistant's services in the worker. Its tools and its save are the API's own services (the ones the
 * MCP server and REST call), provided here without their controllers or the API's background jobs.
 */
@Module({
  imports: [WorkerModule, TemporalModule, EgressModule],
  providers: [
    DefinitionStore,
    StepSummaries,
    WorkflowsService,
    SchedulesService,
    RunsService,
    ToolsService,
    McpServersService,
    ToolListing,
    StepwiseToolsService,
    AssistantStore,
    AssistantBases,
    AssistantTools,
    AssistantModelService,
    AssistantStagesService,
  ],
  exports: [AssistantModelService, AssistantStagesService],
})
export class AssistantWorkerModule {}

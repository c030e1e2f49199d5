import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { McpToolDiscovery } from './agent-tools/mcp-tool-discovery';
import { ToolListing } from './agent-tools/tool-listing';
import { DefinitionStore } from './definition-store.service';
import { EgressGuard } from './egress-guard';
import { StepSummaries } from './step-summaries.service';
import { WorkflowsService } from './workflows.service';

const services = [DefinitionStore, StepSummaries, WorkflowsService, EgressGuard, McpToolDiscovery, ToolListing];

/**
 * The definitions' services for either app, over persistence, config and the run lifecycle. `summaries` is the
 * app's module that provides SummaryLauncher (its own Temporal client starts step summaries); an app imports
 * the result once and hands it on, so that every module of it shares one instance.
 */
@Module({})
export class DefinitionsModule {
  static forRoot(summaries: Type<unknown>): DynamicModule {
    return { module: DefinitionsModule, imports: [summaries], providers: services, exports: services };
  }
}

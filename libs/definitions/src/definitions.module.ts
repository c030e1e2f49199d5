import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { McpToolDiscovery } from './agent-tools/mcp-tool-discovery';
import { ToolListing } from './agent-tools/tool-listing';
import { DefinitionStore } from './definition-store.service';
import { DefinitionVersions } from './definition-versions.service';
import { EgressGuard } from './egress-guard';
import { StepSummaries } from './step-summaries.service';
import { WorkflowsService } from './workflows.service';

const services = [DefinitionStore, DefinitionVersions, StepSummaries, WorkflowsService, EgressGuard, McpToolDiscovery, ToolListing];

/**
 * The definitions' services for either app, over persistence, config and the run lifecycle. `summaries` is the
 * app's module that provides SummaryLauncher (its own Temporal client starts step summaries), `runLife` the
 * app's module that provides ToolManifestService (its run life); an app imports the result once and hands it
 * on, so that every module of it shares one instance.
 */
@Module({})
export class DefinitionsModule {
  static forRoot(summaries: Type<unknown>, runLife: Type<unknown>): DynamicModule {
    return { module: DefinitionsModule, imports: [PersistenceModule, summaries, runLife], providers: services, exports: services };
  }
}

import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { RunLifeServicesModule } from '../run-life-services.module';
import { DefinitionsModule } from '@app/definitions';
import { DryRunDataset } from '../evaluations/dry-run-dataset';
import { WorkerModule } from '../worker.module';
import { AssistantBases } from './assistant-bases';
import { AssistantModelService } from './assistant-model.service';
import { AssistantStagesService } from './assistant-stages.service';
import { AssistantStore } from './assistant-store';
import { AssistantTools } from './assistant-tools';
import { WorkerSummariesModule } from './summary-launcher';

/**
 * The assistant's services in the worker. Its tools and its save are the definitions' services the API's REST
 * routes and MCP server call (libs/definitions), so what it builds passes the very checks a REST save does.
 */
@Module({
  imports: [
    PersistenceModule,
    WorkerModule,
    RunLifeServicesModule,
    DefinitionsModule.forRoot(WorkerSummariesModule, RunLifeServicesModule),
  ],
  providers: [DryRunDataset, AssistantStore, AssistantBases, AssistantTools, AssistantModelService, AssistantStagesService],
  exports: [AssistantModelService, AssistantStagesService],
})
export class AssistantWorkerModule {}

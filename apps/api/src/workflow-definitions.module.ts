import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { SchedulesModule } from './schedules/schedules.module';
import { CatalogController } from './catalog/catalog.controller';
import { DefinitionServicesModule } from './definition-services.module';
import { StepsController } from './steps/steps.controller';
import { StepsService } from './steps/steps.service';
import { TriggersController } from './triggers/triggers.controller';
import { TriggersService } from './triggers/triggers.service';
import { WorkflowChanges } from './workflow-definitions/workflow-changes.service';
import { WorkflowsController } from './workflow-definitions/workflows.controller';
import { WorkflowVersionsController } from './workflow-definitions/workflow-versions.controller';

/** Workflow definitions over HTTP: workflows, their steps and trigger, and the type catalog. */
@Module({
  imports: [PersistenceModule, DefinitionServicesModule, SchedulesModule],
  controllers: [WorkflowsController, WorkflowVersionsController, StepsController, TriggersController, CatalogController],
  providers: [WorkflowChanges, StepsService, TriggersService],
})
export class WorkflowDefinitionsModule {}

import { Module } from '@nestjs/common';
import { SchedulesModule } from './schedules/schedules.module';
import { CatalogController } from './catalog/catalog.controller';
import { StepsController } from './steps/steps.controller';
import { StepsService } from './steps/steps.service';
import { TriggersController } from './triggers/triggers.controller';
import { TriggersService } from './triggers/triggers.service';
import { DefinitionStore } from './workflows/definition-store.service';
import { WorkflowsController } from './workflows/workflows.controller';
import { WorkflowsService } from './workflows/workflows.service';

/** Workflow definitions: workflows, their steps and trigger, and the type catalog. */
@Module({
  imports: [SchedulesModule],
  controllers: [WorkflowsController, StepsController, TriggersController, CatalogController],
  providers: [DefinitionStore, WorkflowsService, StepsService, TriggersService],
  exports: [DefinitionStore],
})
export class DefinitionsModule {}

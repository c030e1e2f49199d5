import { Module } from '@nestjs/common';
import { SchedulesModule } from './schedules/schedules.module';
import { CatalogController } from './catalog/catalog.controller';
import { StepsController } from './steps/steps.controller';
import { StepsService } from './steps/steps.service';
import { TriggersController } from './triggers/triggers.controller';
import { TriggersService } from './triggers/triggers.service';
import { DefinitionStore } from './workflow-definitions/definition-store.service';
import { StepSummaries } from './workflow-definitions/step-summaries.service';
import { WorkflowsController } from './workflow-definitions/workflows.controller';
import { WorkflowsService } from './workflow-definitions/workflows.service';

/** Workflow definitions: workflows, their steps and trigger, and the type catalog. */
@Module({
  imports: [SchedulesModule],
  controllers: [WorkflowsController, StepsController, TriggersController, CatalogController],
  providers: [DefinitionStore, StepSummaries, WorkflowsService, StepsService, TriggersService],
  exports: [DefinitionStore, StepSummaries, WorkflowsService],
})
export class DefinitionsModule {}

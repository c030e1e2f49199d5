import { Module } from '@nestjs/common';
import { HooksController } from '../hooks/hooks.controller';
import { HooksService } from '../hooks/hooks.service';
import { ToolsController } from '../tools/tools.controller';
import { ToolsService } from '../tools/tools.service';
import { RunsController } from './runs.controller';
import { RunReconciler } from './run-reconciler';
import { RunsService } from './runs.service';

/** Runs (started by REST and by webhooks; read, cancel, outputs) and the tool registry their agents use. */
@Module({
  controllers: [RunsController, ToolsController, HooksController],
  providers: [RunsService, RunReconciler, ToolsService, HooksService],
  exports: [RunsService, ToolsService],
})
export class RunsModule {}

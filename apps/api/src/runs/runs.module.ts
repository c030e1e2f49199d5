import { Module } from '@nestjs/common';
import { RunsController } from './runs.controller';
import { RunReconciler } from './run-reconciler';
import { RunsService } from './runs.service';

/** Runs: started (by REST, webhooks and schedules), read, cancelled, resumed; the reconciler starts those an API left behind. */
@Module({
  controllers: [RunsController],
  providers: [RunsService, RunReconciler],
  exports: [RunsService],
})
export class RunsModule {}

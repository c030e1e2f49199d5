import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';

/** Temporal Schedules that start a workflow's runs once or on a cron. */
@Module({
  imports: [RunsModule],
  controllers: [SchedulesController],
  providers: [SchedulesService],
  exports: [SchedulesService],
})
export class SchedulesModule {}

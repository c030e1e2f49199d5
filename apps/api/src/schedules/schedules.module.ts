import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { TemporalModule } from '../temporal/temporal.module';
import { RunLifeServicesModule } from '../run-life-services.module';
import { SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';

/** Temporal Schedules that start a workflow's runs once or on a cron. */
@Module({
  imports: [PersistenceModule, TemporalModule, RunLifeServicesModule],
  controllers: [SchedulesController],
  providers: [SchedulesService],
  exports: [SchedulesService],
})
export class SchedulesModule {}

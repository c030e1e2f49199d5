import { Global, Module } from '@nestjs/common';
import { RunLauncher, TemporalRunLauncher } from './run-launcher';
import { ScheduleGateway, TemporalScheduleGateway } from './schedule-gateway';
import { TemporalClient } from './temporal-client';

/** The API's door to Temporal: start and cancel runs, manage schedules. */
@Global()
@Module({
  providers: [TemporalClient, { provide: RunLauncher, useClass: TemporalRunLauncher }, { provide: ScheduleGateway, useClass: TemporalScheduleGateway }],
  exports: [TemporalClient, RunLauncher, ScheduleGateway],
})
export class TemporalModule {}

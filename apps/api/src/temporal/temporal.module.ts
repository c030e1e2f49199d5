import { Global, Module } from '@nestjs/common';
import { RunLauncher, TemporalRunLauncher } from './run-launcher';
import { ScheduleGateway, TemporalScheduleGateway } from './schedule-gateway';
import { SummaryLauncher, TemporalSummaryLauncher } from './summary-launcher';
import { TemporalClient } from './temporal-client';

/** The API's door to Temporal: start and cancel runs, manage schedules, ask for step summaries. */
@Global()
@Module({
  providers: [TemporalClient, { provide: RunLauncher, useClass: TemporalRunLauncher }, { provide: ScheduleGateway, useClass: TemporalScheduleGateway }, { provide: SummaryLauncher, useClass: TemporalSummaryLauncher }],
  exports: [TemporalClient, RunLauncher, ScheduleGateway, SummaryLauncher],
})
export class TemporalModule {}

import { Module } from '@nestjs/common';
import { RunLauncher } from '@app/runs';
import { TemporalRunLauncher } from './run-launcher';
import { ScheduleGateway, TemporalScheduleGateway } from './schedule-gateway';
import { SummaryLauncher } from '@app/definitions';
import { TemporalSummaryLauncher } from './summary-launcher';
import { TemporalClient } from './temporal-client';
import { AssistantLauncher, TemporalAssistantLauncher } from './assistant-launcher';
import { EvaluationLauncher, TemporalEvaluationLauncher } from './evaluation-launcher';

/** The API's door to Temporal: start and cancel runs, manage schedules, ask for step summaries. */
@Module({
  providers: [
    TemporalClient,
    { provide: RunLauncher, useClass: TemporalRunLauncher },
    { provide: ScheduleGateway, useClass: TemporalScheduleGateway },
    { provide: SummaryLauncher, useClass: TemporalSummaryLauncher },
    { provide: AssistantLauncher, useClass: TemporalAssistantLauncher },
    { provide: EvaluationLauncher, useClass: TemporalEvaluationLauncher },
  ],
  exports: [TemporalClient, RunLauncher, ScheduleGateway, SummaryLauncher, AssistantLauncher, EvaluationLauncher],
})
export class TemporalModule {}

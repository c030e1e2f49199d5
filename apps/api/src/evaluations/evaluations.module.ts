import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { TemporalModule } from '../temporal/temporal.module';
import { EvaluationsController } from './evaluations.controller';
import { EvaluationsService } from './evaluations.service';

/** Datasets and evaluations (#30): REST here, MCP's evaluation tools over the same service. */
@Module({
  imports: [PersistenceModule, TemporalModule],
  controllers: [EvaluationsController],
  providers: [EvaluationsService],
  exports: [EvaluationsService],
})
export class EvaluationsModule {}

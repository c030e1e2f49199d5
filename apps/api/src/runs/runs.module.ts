import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { StreamSlotsModule } from '../common/stream-slots.module';
import { RunLifeServicesModule } from '../run-life-services.module';
import { RunEventsController } from './run-events.controller';
import { RunProgress } from './run-progress';
import { RunWatch } from './run-watch';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

/** The run routes (REST, and their event streams; MCP's run tools call the same services) over a run's life, which RunLifeModule wires. */
@Module({
  imports: [PersistenceModule, RunLifeServicesModule, StreamSlotsModule],
  controllers: [RunsController, RunEventsController],
  providers: [RunsService, RunWatch, RunProgress],
  exports: [RunsService, RunWatch, RunProgress],
})
export class RunsModule {}

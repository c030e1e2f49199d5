import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { RunLifeServicesModule } from '../run-life-services.module';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

/** The run routes (REST; MCP's run tools call the same service) over a run's life, which RunLifeModule wires. */
@Module({
  imports: [PersistenceModule, RunLifeServicesModule],
  controllers: [RunsController],
  providers: [RunsService],
  exports: [RunsService],
})
export class RunsModule {}

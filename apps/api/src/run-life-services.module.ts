import { Module } from '@nestjs/common';
import { RunLifeModule } from '@app/runs';
import { TemporalModule } from './temporal/temporal.module';

/** A run's life over the API's Temporal client (its RunLauncher): one instance for every module that starts, reads or steers runs. */
@Module({
  imports: [RunLifeModule.forApi(TemporalModule)],
  exports: [RunLifeModule],
})
export class RunLifeServicesModule {}

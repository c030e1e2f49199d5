import { Module } from '@nestjs/common';
import { RunLifeModule } from '@app/runs';

/** What the worker uses of a run's life (it records scheduled runs and dry runs, and saves manifests): one instance for its modules. */
@Module({
  imports: [RunLifeModule.forWorker()],
  exports: [RunLifeModule],
})
export class RunLifeServicesModule {}

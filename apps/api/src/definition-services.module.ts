import { Module } from '@nestjs/common';
import { DefinitionsModule } from '@app/definitions';
import { RunLifeServicesModule } from './run-life-services.module';
import { TemporalModule } from './temporal/temporal.module';

/** The definitions' services over the API's Temporal client (which starts step summaries): one instance for every module that saves or reads definitions. */
@Module({
  imports: [DefinitionsModule.forRoot(TemporalModule, RunLifeServicesModule)],
  exports: [DefinitionsModule],
})
export class DefinitionServicesModule {}

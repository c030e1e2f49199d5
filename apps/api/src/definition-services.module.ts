import { Module } from '@nestjs/common';
import { DefinitionsModule } from '@app/definitions';
import { TemporalModule } from './temporal/temporal.module';

/** The definitions' services over the API's Temporal client (which starts step summaries): one instance for every module that saves or reads definitions. */
@Module({
  imports: [DefinitionsModule.forRoot(TemporalModule)],
  exports: [DefinitionsModule],
})
export class DefinitionServicesModule {}

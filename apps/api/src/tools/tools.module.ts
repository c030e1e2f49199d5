import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { DefinitionServicesModule } from '../definition-services.module';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

/** The user's tool registry (/tools): HTTP tools their agents may call, beside the built-ins. */
@Module({
  imports: [PersistenceModule, DefinitionServicesModule],
  controllers: [ToolsController],
  providers: [ToolsService],
})
export class ToolsModule {}

import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { TemporalModule } from '../temporal/temporal.module';
import { AppConfig } from '@app/config';
import { AssistantController } from './assistant.controller';
import { AssistantPageController } from './assistant-page.controller';
import { AssistantService } from './assistant.service';
import { AssistantTurns } from './assistant-turns';
import { StreamSlots } from './stream-slots';

/** The assistant (a conversation that writes a workflow): sessions, their messages and events (SSE), and the page to talk to it; its turns for the MCP tools. */
@Module({
  imports: [PersistenceModule, TemporalModule],
  controllers: [AssistantController, AssistantPageController],
  providers: [
    AssistantService,
    AssistantTurns,
    { provide: StreamSlots, useFactory: (config: AppConfig) => new StreamSlots(config.assistant.maxStreamsPerKey), inject: [AppConfig] },
  ],
  exports: [AssistantTurns],
})
export class AssistantModule {}

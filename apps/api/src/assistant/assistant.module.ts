import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { TemporalModule } from '../temporal/temporal.module';
import { AssistantController } from './assistant.controller';
import { AssistantPageController } from './assistant-page.controller';
import { AssistantService } from './assistant.service';
import { AssistantTurns } from './assistant-turns';
import { StreamSlotsModule } from '../common/stream-slots.module';

/** The assistant (a conversation that writes a workflow): sessions, their messages and events (SSE), and the page to talk to it; its turns for the MCP tools. */
@Module({
  imports: [PersistenceModule, TemporalModule, StreamSlotsModule],
  controllers: [AssistantController, AssistantPageController],
  providers: [AssistantService, AssistantTurns],
  exports: [AssistantTurns],
})
export class AssistantModule {}

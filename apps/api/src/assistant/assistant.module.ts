import { Module } from '@nestjs/common';
import { AssistantController } from './assistant.controller';
import { AssistantPageController } from './assistant-page.controller';
import { AssistantService } from './assistant.service';

/** Seed 003's assistant: sessions, their messages and events (SSE), and the page to talk to it. */
@Module({
  controllers: [AssistantController, AssistantPageController],
  providers: [AssistantService],
})
export class AssistantModule {}

import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AssistantController } from './assistant.controller';
import { AssistantPageController } from './assistant-page.controller';
import { AssistantService } from './assistant.service';
import { StreamSlots } from './stream-slots';

/** Seed 003's assistant: sessions, their messages and events (SSE), and the page to talk to it. */
@Module({
  controllers: [AssistantController, AssistantPageController],
  providers: [AssistantService, { provide: StreamSlots, useFactory: (config: AppConfig) => new StreamSlots(config.assistant.maxStreamsPerKey), inject: [AppConfig] }],
})
export class AssistantModule {}

import { Module } from '@nestjs/common';
import { HooksController } from './hooks.controller';
import { HooksService } from './hooks.service';

/** Webhook deliveries (/hooks/{trigger_uuid}): checked and filtered, each match starts a run. */
@Module({
  controllers: [HooksController],
  providers: [HooksService],
})
export class HooksModule {}

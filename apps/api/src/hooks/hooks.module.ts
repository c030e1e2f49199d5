import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { RunLifeServicesModule } from '../run-life-services.module';
import { HooksController } from './hooks.controller';
import { HooksService } from './hooks.service';

/** Webhook deliveries (/hooks/{trigger_uuid}): checked and filtered, each match starts a run. */
@Module({
  imports: [PersistenceModule, RunLifeServicesModule],
  controllers: [HooksController],
  providers: [HooksService],
})
export class HooksModule {}

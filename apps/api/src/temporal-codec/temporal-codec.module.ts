import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { TemporalCodecController } from './temporal-codec.controller';
import { TemporalCodecService } from './temporal-codec.service';
import { TemporalUiPageController } from './temporal-ui-page.controller';

@Module({
  imports: [PersistenceModule],
  controllers: [TemporalCodecController, TemporalUiPageController],
  providers: [TemporalCodecService],
})
export class TemporalCodecModule {}

import { Module } from '@nestjs/common';
import { TemporalCodecController } from './temporal-codec.controller';
import { TemporalCodecService } from './temporal-codec.service';
import { TemporalUiPageController } from './temporal-ui-page.controller';

@Module({ controllers: [TemporalCodecController, TemporalUiPageController], providers: [TemporalCodecService] })
export class TemporalCodecModule {}

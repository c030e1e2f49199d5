import { Module } from '@nestjs/common';
import { TemporalCodecController } from './temporal-codec.controller';
import { TemporalCodecService } from './temporal-codec.service';

@Module({ controllers: [TemporalCodecController], providers: [TemporalCodecService] })
export class TemporalCodecModule {}

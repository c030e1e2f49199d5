import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { RunLifeServicesModule } from '../run-life-services.module';
import { SpendLimitsService } from './spend-limits.service';
import { UsageController } from './usage.controller';

/** GET /usage: what a user's model calls used and cost; /usage/limits: the user's spend limits. */
@Module({ imports: [PersistenceModule, RunLifeServicesModule], controllers: [UsageController], providers: [SpendLimitsService] })
export class UsageModule {}

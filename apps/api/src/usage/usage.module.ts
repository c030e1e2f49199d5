import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { UsageController } from './usage.controller';

/** GET /usage: what a user's model calls used and cost. */
@Module({ imports: [PersistenceModule], controllers: [UsageController] })
export class UsageModule {}

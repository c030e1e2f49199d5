import { Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { AppConfig } from '@app/config';
import { AddressLimiter } from './address-limiter';
import { ApiKeyService } from './api-key.service';
import { RateLimiter } from './rate-limiter';

@Module({
  imports: [PersistenceModule],
  providers: [
    ApiKeyService,
    {
      provide: RateLimiter,
      useFactory: (config: AppConfig) => new RateLimiter(config.quotas.requestsPerMinute, config.quotas.requestBurst),
      inject: [AppConfig],
    },
    {
      provide: AddressLimiter,
      useFactory: (config: AppConfig) => new AddressLimiter(config.quotas.addressRequestsPerMinute, config.quotas.addressRequestBurst),
      inject: [AppConfig],
    },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [ApiKeyService, AddressLimiter],
})
export class AuthModule {}

import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { type AppConfig, ConfigModule } from '@app/config';
import { PersistenceModule } from '@app/persistence';
import { AuthModule } from './auth';
import { EgressModule } from './common/egress-guard';
import { ApiExceptionFilter } from './common/exception.filter';
import { DefinitionsModule } from './definitions.module';
import { HealthController } from './health/health.controller';
import { ReadinessService } from './health/readiness.service';
import { McpModule } from './mcp/mcp.module';
import { ObservabilityModule } from './observability/observability.module';
import { RunsModule } from './runs/runs.module';
import { TemporalModule } from './temporal/temporal.module';

@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), PersistenceModule, ObservabilityModule, EgressModule, TemporalModule, AuthModule, DefinitionsModule, RunsModule, McpModule],
      controllers: [HealthController],
      providers: [ReadinessService, { provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { type AppConfig, ConfigModule } from '@app/config';
import { PersistenceModule } from '@app/persistence';
import { AssistantModule } from './assistant/assistant.module';
import { AuthModule } from './auth';
import { ApiExceptionFilter } from './common/exception.filter';
import { HealthController } from './health/health.controller';
import { HooksModule } from './hooks/hooks.module';
import { ReadinessService } from './health/readiness.service';
import { McpModule } from './mcp/mcp.module';
import { McpServersModule } from './mcp-servers/mcp-servers.module';
import { ObservabilityModule } from './observability/observability.module';
import { RunsModule } from './runs/runs.module';
import { EvaluationsModule } from './evaluations/evaluations.module';
import { TemporalModule } from './temporal/temporal.module';
import { TemporalCodecModule } from './temporal-codec/temporal-codec.module';
import { ToolsModule } from './tools/tools.module';
import { UsageModule } from './usage/usage.module';
import { WorkflowDefinitionsModule } from './workflow-definitions.module';

@Module({})
export class AppModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule,
        PersistenceModule,
        TemporalModule,
        AuthModule,
        WorkflowDefinitionsModule,
        RunsModule,
        EvaluationsModule,
        ToolsModule,
        HooksModule,
        McpModule,
        TemporalCodecModule,
        McpServersModule,
        AssistantModule,
        UsageModule,
      ],
      controllers: [HealthController],
      providers: [ReadinessService, { provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}

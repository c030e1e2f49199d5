// The database for both apps: one DataSource from the typed config, and the repositories behind their
// abstract-class tokens. The worker imports the same module.
import { Inject, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { McpToolSource } from '@app/contracts';
import { McpClientModule } from '@app/providers';
import { SecretBox } from '@app/security';
import { createDataSource, poolShares } from './data-source';
import { OneTripPool } from './one-trip-pool';
import { SqlWorkflowOwnerRepository, WorkflowOwnerRepository } from './workflow-owners.repository';
import {
  StepSummaryRepository,
  TriggerHookRepository,
  TypeormStepSummaryRepository,
  TypeormTriggerHookRepository,
  TypeormWorkflowRepository,
  TypeormWorkflowVersionRepository,
  WorkflowRepository,
  WorkflowVersionRepository,
} from './definitions';
import { ApiKeyRepository, TypeormApiKeyRepository } from './api-keys';
import { ScheduleRepository, TypeormScheduleRepository } from './schedules';
import { ToolRepository, TypeormToolRepository } from './tools';
import { EvaluationRepository, SqlEvaluationRepository } from './evaluations';
import { AssistantRepository, TypeormAssistantRepository } from './assistant';
import { McpServerRepository, McpToolCatalog, TypeormMcpServerRepository } from './mcp';
import {
  CallAuditRepository,
  ConversationRepository,
  OutputRepository,
  RunEventRepository,
  RunRepository,
  SqlRunEventRepository,
  StepRepository,
  TypeormCallAuditRepository,
  TypeormConversationRepository,
  TypeormOutputRepository,
  TypeormRunRepository,
  TypeormStepRepository,
} from './runs';
import { SpendRepository, TypeormSpendRepository, TypeormUsageRepository, UsageRepository } from './usage';
import { ProviderRateRepository, TypeormProviderRateRepository } from './provider-rates';

const repositories: Provider[] = [
  { provide: AssistantRepository, useFactory: (ds: DataSource) => new TypeormAssistantRepository(ds), inject: [DataSource] },
  {
    provide: WorkflowRepository,
    useFactory: (ds: DataSource, config: AppConfig) => new TypeormWorkflowRepository(ds, config.quotas.workflowVersionsKept),
    inject: [DataSource, AppConfig],
  },
  { provide: WorkflowVersionRepository, useFactory: (ds: DataSource) => new TypeormWorkflowVersionRepository(ds), inject: [DataSource] },
  { provide: ApiKeyRepository, useFactory: (ds: DataSource) => new TypeormApiKeyRepository(ds), inject: [DataSource] },
  { provide: TriggerHookRepository, useFactory: (ds: DataSource) => new TypeormTriggerHookRepository(ds), inject: [DataSource] },
  {
    provide: RunRepository,
    useFactory: (ds: DataSource, oneTrip: OneTripPool, config: AppConfig) =>
      new TypeormRunRepository(ds, oneTrip, config.quotas.maxRunsInFlightPerUser),
    inject: [DataSource, OneTripPool, AppConfig],
  },
  {
    provide: StepRepository,
    useFactory: (ds: DataSource, oneTrip: OneTripPool) => new TypeormStepRepository(ds, oneTrip),
    inject: [DataSource, OneTripPool],
  },
  { provide: OutputRepository, useFactory: (ds: DataSource) => new TypeormOutputRepository(ds), inject: [DataSource] },
  {
    provide: CallAuditRepository,
    useFactory: (ds: DataSource, oneTrip: OneTripPool) => new TypeormCallAuditRepository(ds, oneTrip),
    inject: [DataSource, OneTripPool],
  },
  { provide: RunEventRepository, useFactory: (ds: DataSource) => new SqlRunEventRepository(ds), inject: [DataSource] },
  { provide: ConversationRepository, useFactory: (ds: DataSource) => new TypeormConversationRepository(ds), inject: [DataSource] },
  { provide: ScheduleRepository, useFactory: (ds: DataSource) => new TypeormScheduleRepository(ds), inject: [DataSource] },
  { provide: StepSummaryRepository, useFactory: (ds: DataSource) => new TypeormStepSummaryRepository(ds), inject: [DataSource] },
  { provide: WorkflowOwnerRepository, useFactory: (ds: DataSource) => new SqlWorkflowOwnerRepository(ds), inject: [DataSource] },
  { provide: ProviderRateRepository, useFactory: (ds: DataSource) => new TypeormProviderRateRepository(ds), inject: [DataSource] },
  { provide: SpendRepository, useFactory: (ds: DataSource) => new TypeormSpendRepository(ds), inject: [DataSource] },
  { provide: UsageRepository, useFactory: (ds: DataSource) => new TypeormUsageRepository(ds), inject: [DataSource] },
  { provide: ToolRepository, useFactory: (ds: DataSource) => new TypeormToolRepository(ds), inject: [DataSource] },
  { provide: EvaluationRepository, useFactory: (ds: DataSource) => new SqlEvaluationRepository(ds), inject: [DataSource] },
  {
    provide: McpServerRepository,
    useFactory: (ds: DataSource, secrets: SecretBox) => new TypeormMcpServerRepository(ds, secrets),
    inject: [DataSource, SecretBox],
  },
  {
    provide: McpToolCatalog,
    useFactory: (servers: McpServerRepository, source: McpToolSource) => new McpToolCatalog(servers, source),
    inject: [McpServerRepository, McpToolSource],
  },
];

/** The data source, the one-trip pool and the repositories: a module imports it where it injects them. */
@Module({
  imports: [McpClientModule],
  providers: [
    {
      provide: DataSource,
      useFactory: (config: AppConfig) => createDataSource(config.databaseUrl, poolShares(config.databasePoolSize).shared).initialize(),
      inject: [AppConfig],
    },
    // Its own connections, opened only as they are needed: DATABASE_POOL_SIZE bounds the two pools together.
    {
      provide: OneTripPool,
      useFactory: (config: AppConfig) => OneTripPool.open(config.databaseUrl, poolShares(config.databasePoolSize).oneTrip),
      inject: [AppConfig],
    },
    ...repositories,
  ],
  exports: [DataSource, ...repositories],
})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(OneTripPool) private readonly oneTrip: OneTripPool,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.oneTrip.close();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

import { Global, Module } from '@nestjs/common';
import { PersistenceModule } from '@app/persistence';
import { Metrics } from '@app/observability';
import { MetricsEndpoint } from './metrics-endpoint';
import { TracingService } from './tracing.service';

@Global()
@Module({
  imports: [PersistenceModule],
  providers: [{ provide: Metrics, useFactory: () => new Metrics('api') }, MetricsEndpoint, TracingService],
  exports: [Metrics, TracingService],
})
export class ObservabilityModule {}

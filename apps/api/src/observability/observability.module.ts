import { Global, Module } from '@nestjs/common';
import { Metrics } from '@app/observability';
import { MetricsEndpoint } from './metrics-endpoint';
import { TracingService } from './tracing.service';

@Global()
@Module({
  providers: [{ provide: Metrics, useFactory: () => new Metrics('api') }, MetricsEndpoint, TracingService],
  exports: [Metrics, TracingService],
})
export class ObservabilityModule {}

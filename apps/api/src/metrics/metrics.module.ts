import { Global, Module } from '@nestjs/common';
import { Metrics } from '@app/observability';
import { MetricsEndpoint } from './metrics-endpoint';

@Global()
@Module({
  providers: [{ provide: Metrics, useFactory: () => new Metrics('api') }, MetricsEndpoint],
  exports: [Metrics],
})
export class MetricsModule {}

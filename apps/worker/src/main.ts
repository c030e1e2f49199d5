import 'reflect-metadata';
import { createServer } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { loadConfig } from '@app/config';
import { createLogger, PinoNestLogger, temporalLogger } from '@app/observability';
import { createRunWorker } from './create-worker';
import { workflowSource } from './workflow-source';

/** A free loopback port for the SDK's own Prometheus exporter, which GET /metrics reads and appends. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('worker', config.log);
  const sdkMetricsPort = config.metrics.workerPort === null ? null : await freePort();
  // Every line the SDK writes (worker, activities, workflows through its sink: not again on replay, and
  // the native core's warnings) comes out as ours; its metrics (slots, polls, schedule-to-start) too.
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
      ...(sdkMetricsPort ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkMetricsPort}` } } } : {}),
    },
  });
  const runWorker = await createRunWorker(config, workflowSource(config.tracing.otlpEndpoint !== null), {
    logger: new PinoNestLogger(logger),
    sdkMetricsUrl: sdkMetricsPort ? `http://127.0.0.1:${sdkMetricsPort}/metrics` : undefined,
  });
  // The SDK shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks have drained.
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  logger.info(
    {
      task_queue: config.temporal.taskQueue,
      address: config.temporal.address,
      metrics_port: runWorker.metricsPort,
      heap_limit_mb: heapLimitMb,
    },
    `worker polling task queue ${config.temporal.taskQueue}`,
  );
  await runWorker.run();
  logger.info('worker stopped');
  logger.flush();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

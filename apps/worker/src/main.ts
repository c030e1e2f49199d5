import 'reflect-metadata';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { loadConfig } from '@app/config';
import { createLogger, PinoNestLogger, temporalLogger } from '@app/observability';
import { createRunWorker } from './create-worker';

// The worker bundles the compiled workflow code next to this file's build (dist/libs/engine/...).
const WORKFLOWS_PATH = require.resolve('../../../libs/engine/src/workflows');

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('worker', config.log);
  // Every line the SDK writes (worker, activities, workflows through its sink: not again on replay, and
  // the native core's warnings) comes out as ours.
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) } },
  });
  const runWorker = await createRunWorker(config, { workflowsPath: WORKFLOWS_PATH }, new PinoNestLogger(logger));
  // The SDK shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks have drained.
  logger.info({ task_queue: config.temporal.taskQueue, address: config.temporal.address }, `worker polling task queue ${config.temporal.taskQueue}`);
  await runWorker.run();
  logger.info('worker stopped');
  logger.flush();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { createRunWorker } from './create-worker';

// The worker bundles the compiled workflow code next to this file's build (dist/libs/engine/...).
const WORKFLOWS_PATH = require.resolve('../../../libs/engine/src/workflows');

async function main(): Promise<void> {
  const config = loadConfig();
  const runWorker = await createRunWorker(config, { workflowsPath: WORKFLOWS_PATH });
  // The SDK shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks have drained.
  console.log(`[stepwise] worker polling task queue ${config.temporal.taskQueue} on ${config.temporal.address}`);
  await runWorker.run();
  console.log('[stepwise] worker stopped');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// Runs once before the engine's workflow specs: bundles the workflow code from its sources (webpack, a few
// seconds), so the specs test the code as it is now without `npm run build`, and every worker of the run
// loads that one bundle. Needs only Temporal (TEMPORAL_ADDRESS): the activities are fakes, no MySQL.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { preloadedModules } from '../../apps/worker/src/workflow-source';
import { aliasesFor } from '../support/workflow-bundle';
import { ENGINE_BUNDLE_ENV } from './support/engine-bundle';

const WORKFLOWS = path.resolve(__dirname, '../../libs/engine/src/workflows');

export default async function globalSetup(): Promise<void> {
  if (!process.env.TEMPORAL_ADDRESS)
    throw new Error('TEMPORAL_ADDRESS must be set: run the tests with `npm test` (or export it for a Temporal server you run)');
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    preloadModules: preloadedModules(WORKFLOWS),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
    webpackConfigHook: (config) => ({
      ...config,
      resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), ...aliasesFor() } },
    }),
  });
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'stepwise-engine-')), 'workflow-bundle.js');
  writeFileSync(file, code);
  // Read by the specs' workers: jest starts its workers after the global set-up, with this environment.
  process.env[ENGINE_BUNDLE_ENV] = file;
}

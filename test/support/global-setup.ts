// Runs once before the e2e specs: the infrastructure comes from scripts/test.sh (npm test); this
// migrates the test database and bundles the workflow code once, so specs can run in parallel.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { aliasesFor, WORKFLOW_BUNDLE_PATH, WORKFLOWS_SOURCE } from './workflow-bundle';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl || !process.env.TEMPORAL_ADDRESS) {
    throw new Error('DATABASE_URL and TEMPORAL_ADDRESS must be set: run the tests with `npm test`');
  }
  await migrateDatabase(databaseUrl);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_SOURCE,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
    webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), ...aliasesFor() } } }),
  });
  mkdirSync(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
}

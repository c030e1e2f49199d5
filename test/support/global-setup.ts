// Runs once before the e2e specs: the infrastructure and the build (with its workflow bundle) come from
// scripts/test.sh (npm test); this migrates the test database, so specs can run in parallel.
import { existsSync } from 'node:fs';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { WORKFLOW_BUNDLE_PATH } from './workflow-bundle';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl || !process.env.TEMPORAL_ADDRESS) {
    throw new Error('DATABASE_URL and TEMPORAL_ADDRESS must be set: run the tests with `npm test`');
  }
  if (!existsSync(WORKFLOW_BUNDLE_PATH))
    throw new Error(`${WORKFLOW_BUNDLE_PATH} is missing: run the tests with \`npm test\`, which builds it`);
  await migrateDatabase(databaseUrl);
}

// Runs once before the e2e specs: the infrastructure comes from scripts/test.sh (npm test); this
// migrates the test database once so specs can run in parallel, each with its own user.
import { migrateDatabase } from '../../libs/persistence/src/migrate';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl || !process.env.TEMPORAL_ADDRESS) {
    throw new Error('DATABASE_URL and TEMPORAL_ADDRESS must be set: run the tests with `npm test`');
  }
  await migrateDatabase(databaseUrl);
}

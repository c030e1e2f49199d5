// Runs once before the medium specs: migrates the database they share (DATABASE_URL, which npm test exports
// after bringing MySQL up). No Temporal: medium specs call services and repositories directly.
import { migrateDatabase } from '../../libs/persistence/src/migrate';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL must be set: run the tests with `npm test` (or export it for a MySQL you run)');
  await migrateDatabase(databaseUrl);
}

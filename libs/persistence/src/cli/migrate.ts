// npm run migrate / the start script: bring the schema of DATABASE_URL up to date.
import { loadConfig } from '@app/config';
import { migrateDatabase } from '../migrate';

async function main(): Promise<void> {
  const { databaseUrl } = loadConfig();
  const ran = await migrateDatabase(databaseUrl);
  const where = new URL(databaseUrl);
  console.log(
    `[stepwise] database ${where.pathname.slice(1)} on ${where.host}: ${ran.length ? `ran ${ran.join(', ')}` : 'schema up to date'}`,
  );
}

main().catch((error: unknown) => {
  console.error(`[stepwise] migration failed: ${(error as Error).message}`);
  process.exit(1);
});

// npm run api-key -- create --user <id> [--name <name>] | list [--user <id>] | revoke <uuid|prefix> | ensure-dev-key
// A plain node entry (no HTTP server): it needs only the database.
import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { createDataSource, TypeormApiKeyRepository } from '@app/persistence';
import { ApiKeyService } from '../auth/api-key.service';
import { runApiKeyCommand, UsageError } from './api-key.command';

async function main(): Promise<void> {
  const dataSource = await createDataSource(loadConfig().databaseUrl).initialize();
  try {
    await runApiKeyCommand(new ApiKeyService(new TypeormApiKeyRepository(dataSource)), process.argv.slice(2), (line) => console.log(line));
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(error instanceof UsageError ? 2 : 1);
});

// npm run api-key -- create --user <id> --name <name> | list [--user <id>] | revoke <uuid|prefix> | ensure-dev-key
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadConfig } from '@app/config';
import { createDataSource, TypeormApiKeyRepository } from '@app/persistence';
import { ApiKeyService } from '../auth/api-key.service';

const USAGE = 'usage: api-key create --user <id> [--name <name>] | list [--user <id>] | revoke <uuid|prefix> | ensure-dev-key';

async function run(keys: ApiKeyService, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { user: { type: 'string' }, name: { type: 'string' } },
  });
  const [command, target] = positionals;
  switch (command) {
    case 'create': {
      if (!values.user) throw new Error(USAGE);
      const { key, record } = await keys.create(values.user, values.name ?? 'api key');
      console.log(`created key ${record.uuid} for user ${record.user_id} (shown once, keep it):\n${key}`);
      return;
    }
    case 'list':
      for (const key of await keys.list(values.user)) {
        console.log(`${key.uuid}  ${key.key_prefix}…  user=${key.user_id}  name=${key.name}  ${key.revoked_at ? `revoked ${key.revoked_at.toISOString()}` : 'active'}`);
      }
      return;
    case 'revoke': {
      if (!target) throw new Error(USAGE);
      const revoked = await keys.revoke(target);
      if (!revoked) throw new Error(`no active key matches ${target}`);
      console.log(`revoked ${revoked} key(s)`);
      return;
    }
    case 'ensure-dev-key': {
      const key = await keys.ensureDevKey();
      console.log(key ? `[stepwise] development API key for user "dev" (shown once, keep it):\n${key}` : '[stepwise] API keys exist already (npm run api-key -- list)');
      return;
    }
    default:
      throw new Error(USAGE);
  }
}

async function main(): Promise<void> {
  const dataSource = await createDataSource(loadConfig().databaseUrl).initialize();
  try {
    await run(new ApiKeyService(new TypeormApiKeyRepository(dataSource)), process.argv.slice(2));
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});

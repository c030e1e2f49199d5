// The api-key commands, apart from the process entry so that they run against any repository.
import { parseArgs } from 'node:util';
import type { ApiKeyService } from '../auth/api-key.service';

export const API_KEY_USAGE =
  'usage: api-key create --user <id> [--name <name>] | list [--user <id>] | revoke <uuid|prefix> | ensure-dev-key';

export class UsageError extends Error {}

/** Runs one command; `print` gets each line of output. Throws UsageError on bad arguments. */
export async function runApiKeyCommand(keys: ApiKeyService, argv: string[], print: (line: string) => void): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { user: { type: 'string' }, name: { type: 'string' } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${API_KEY_USAGE}`);
  }
  const { positionals, values } = parsed;
  const [command, target] = positionals;
  switch (command) {
    case 'create': {
      if (!values.user) throw new UsageError(`create needs --user\n${API_KEY_USAGE}`);
      const { key, record } = await keys.create(values.user, values.name ?? 'api key');
      print(`created key ${record.uuid} for user ${record.user_id} (shown once, keep it):`);
      print(key);
      return;
    }
    case 'list':
      for (const key of await keys.list(values.user)) {
        print(
          `${key.uuid}  ${key.key_prefix}…  user=${key.user_id}  name=${key.name}  ${key.revoked_at ? `revoked ${key.revoked_at.toISOString()}` : 'active'}`,
        );
      }
      return;
    case 'revoke': {
      if (!target) throw new UsageError(`revoke needs a key uuid or prefix\n${API_KEY_USAGE}`);
      const revoked = await keys.revoke(target);
      if (!revoked) throw new Error(`no active key matches ${target}`);
      print(`revoked ${revoked} key(s)`);
      return;
    }
    case 'ensure-dev-key': {
      const key = await keys.ensureDevKey();
      if (key) {
        print('[stepwise] development API key for user "dev" (shown once, keep it):');
        print(key);
      } else {
        print('[stepwise] API keys exist already (npm run api-key -- list)');
      }
      return;
    }
    default:
      throw new UsageError(API_KEY_USAGE);
  }
}

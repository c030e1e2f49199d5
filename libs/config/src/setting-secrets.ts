// The settings that are secrets, by value: what the logs and failure messages must never repeat.
import type { AppConfig } from './app-config';

export function settingSecrets(config: AppConfig): string[] {
  const database = new URL(config.databaseUrl);
  const apiKey = (config.temporal.connection as { apiKey?: unknown }).apiKey;
  return [
    config.providers.openai.apiKey,
    config.providers.anthropic?.apiKey,
    config.providers.openrouter?.apiKey,
    database.password && decodeURIComponent(database.password),
    typeof apiKey === 'string' ? apiKey : null,
    ...config.security.keyring.keys.flatMap(({ key }) => [key.toString('base64'), key.toString('base64url')]),
  ].filter((secret): secret is string => Boolean(secret));
}

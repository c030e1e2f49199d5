// The secrets this process holds by value (model provider keys, the database password, the encryption
// keys...): registered once from the settings, and taken out of every log line and failure message the
// process writes, besides what only looks like a secret (scrubSecrets).
import { scrubSecrets } from '@app/contracts';

const secrets = new Set<string>();
let list: readonly string[] = [];

/** Adds values to the secrets scrubbed by value; empty ones are ignored. */
export function rememberSecrets(values: Iterable<string | null | undefined>): void {
  for (const value of values) if (value) secrets.add(value);
  list = [...secrets];
}

export function knownSecrets(): readonly string[] {
  return list;
}

/** `text` without what looks like a secret nor any secret this process knows. */
export function scrubbed(text: string): string {
  return scrubSecrets(text, list);
}

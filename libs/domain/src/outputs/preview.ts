// An output's preview: a deterministic digest of a step's output, what agents see instead of full data and
// what lists show (stored and sent as `summary`: the step_outputs column and OutputRef's recorded field).
// Dependency-free, like the placeholders: any layer may call it.

export const MAX_PREVIEW = 280;
/** Keys of an object, and values of an array, named before the rest are counted. */
const SHOWN = 12;

/** Cuts to `max` characters (code points, so no emoji is split), ending in … when cut. */
function clip(text: string, max = MAX_PREVIEW): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

const flat = (text: string): string => text.replace(/\s+/g, ' ').trim();

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One value in a few words: `4 items`, `object (3 keys)`, `"text"`, `12`. */
function describeValue(value: unknown): string {
  if (Array.isArray(value)) return plural(value.length, 'item');
  if (isRecord(value)) return `object (${plural(Object.keys(value).length, 'key')})`;
  if (typeof value === 'string') return JSON.stringify(clip(flat(value), 40));
  if (value === undefined) return 'undefined';
  return String(value);
}

/** `a, b, c (+2 more)` */
function listed(parts: string[], total: number): string {
  return total > parts.length ? `${parts.join(', ')} (+${total - parts.length} more)` : parts.join(', ');
}

function summarizeText(raw: string): string {
  const text = raw.trim();
  if (!text) return 'Empty text';
  // The first line, then its first sentence; a markdown heading or bullet marker is not content.
  const firstLine = text
    .split('\n')[0]
    .replace(/^\s*(#{1,6}|[-*+>]|\d+\.)\s+/, '')
    .trim();
  const firstSentence = firstLine.split(/(?<=[.!?])\s/)[0];
  const more = text.includes('\n') || firstSentence.length < firstLine.length;
  return clip(more ? `${flat(firstSentence)} …` : flat(firstSentence));
}

function summarizeArray(raw: unknown[]): string {
  if (raw.length === 0) return 'Empty array';
  const head = `Array of ${plural(raw.length, 'item')}`;
  if (raw.every(isRecord)) {
    const keys = [...new Set(raw.slice(0, SHOWN).flatMap((item) => Object.keys(item)))];
    return clip(keys.length ? `${head}; items have ${listed(keys.slice(0, SHOWN), keys.length)}` : head);
  }
  return clip(`${head}: ${listed(raw.slice(0, SHOWN).map(describeValue), raw.length)}`);
}

function summarizeObject(raw: Record<string, unknown>): string {
  const keys = Object.keys(raw);
  if (keys.length === 0) return 'Empty object';
  return clip(
    `Object with ${listed(
      keys.slice(0, SHOWN).map((key) => `${key}: ${describeValue(raw[key])}`),
      keys.length,
    )}`,
  );
}

/**
 * At most 280 characters saying what an output is: text by its first sentence or line (… when there is
 * more), arrays by length and the keys of their items (or their first values), objects by their keys with
 * the size of arrays and nested objects and the start of strings.
 */
export function outputPreview(raw: unknown): string {
  if (typeof raw === 'string') return summarizeText(raw);
  if (Array.isArray(raw)) return summarizeArray(raw);
  if (isRecord(raw)) return summarizeObject(raw);
  if (raw === undefined) return 'No output';
  return clip(String(raw));
}

/** Text outputs are their own markdown representation; structured (and empty) ones have none. */
export function markdownFor(raw: unknown): string | null {
  return typeof raw === 'string' && raw.trim() !== '' ? raw : null;
}

/** Size in UTF-8 bytes: of the text itself, or of anything else as JSON. */
export function byteSize(raw: unknown): number {
  return new TextEncoder().encode(typeof raw === 'string' ? raw : (JSON.stringify(raw ?? null) ?? 'null')).length;
}

/** An output as its row stores it: its JSON and what the row shows of it. */
export interface SerializedOutput {
  json: string;
  summary: string;
  markdown_representation: string | null;
  size_bytes: number;
}

/**
 * Serializes an output and describes it in one go, where that work may run (a webhook delivery's, in the
 * delivery pool's thread): what would otherwise walk a large value on the API's event loop three times.
 */
export function serializeOutput(raw: unknown): SerializedOutput {
  const json = JSON.stringify(raw ?? null) ?? 'null';
  return {
    json,
    summary: outputPreview(raw),
    markdown_representation: markdownFor(raw),
    size_bytes: typeof raw === 'string' ? byteSize(raw) : new TextEncoder().encode(json).length,
  };
}

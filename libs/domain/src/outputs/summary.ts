// Deterministic digests of step outputs: what agents see instead of full data, and what lists show.

const MAX_SUMMARY = 280;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_SUMMARY ? flat : `${flat.slice(0, MAX_SUMMARY - 1)}…`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} items`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `object (${Object.keys(value).length} keys)`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
  return String(value);
}

export function summarizeOutput(raw: unknown): string {
  if (typeof raw === 'string') {
    const firstLine = raw.trim().split(/\n|(?<=[.!?])\s/)[0] ?? '';
    return clip(firstLine.length < raw.trim().length ? `${firstLine} …` : firstLine);
  }
  if (Array.isArray(raw)) {
    const first = raw[0];
    const keys = first && typeof first === 'object' && !Array.isArray(first) ? `; items have ${Object.keys(first).join(', ')}` : '';
    return clip(`Array of ${raw.length} items${keys}`);
  }
  if (raw !== null && typeof raw === 'object') {
    const parts = Object.entries(raw).map(([key, value]) => `${key}: ${describeValue(value)}`);
    return clip(`Object with ${parts.join(', ')}`);
  }
  return clip(String(raw));
}

/** Text outputs keep a markdown representation; structured ones do not. */
export function markdownFor(raw: unknown): string | null {
  return typeof raw === 'string' ? raw : null;
}

export function byteSize(raw: unknown): number {
  return new TextEncoder().encode(typeof raw === 'string' ? raw : JSON.stringify(raw ?? null)).length;
}

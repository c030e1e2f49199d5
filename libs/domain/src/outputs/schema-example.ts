// A value that follows a JSON Schema: what a dry run answers in place of a model or a tool. `variant` makes
// the n-th answer differ from the one before (a graph step run again sees new input) and picks the n-th
// of an enum's values (a router tries its routes in turn).

type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;

export function exampleOf(schema: unknown, variant = 0, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return `dry run ${variant}`;
  const s = schema as Schema;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[variant % s.enum.length];
  if ('default' in s) return s.default;
  if (Array.isArray(s.allOf)) return merged(s.allOf.map((part) => exampleOf(part, variant, depth + 1)));
  for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(s[key]) && (s[key] as unknown[]).length) return exampleOf((s[key] as unknown[])[0], variant, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((candidate) => candidate !== 'null') : s.type;
  switch (type ?? (s.properties ? 'object' : s.items ? 'array' : 'string')) {
    case 'object':
      return Object.fromEntries(Object.entries((s.properties as Record<string, unknown>) ?? {}).map(([name, property]) => [name, exampleOf(property, variant, depth + 1)]));
    case 'array':
      return Array.from({ length: Math.max(1, Number(s.minItems) || 0) }, () => exampleOf(s.items, variant, depth + 1));
    case 'integer':
    case 'number':
      return numberIn(s, variant);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringFor(s, variant);
  }
}

function merged(parts: unknown[]): unknown {
  const objects = parts.filter((part): part is Schema => Boolean(part) && typeof part === 'object' && !Array.isArray(part));
  return objects.length === parts.length ? Object.assign({}, ...objects) : parts[0];
}

function numberIn(s: Schema, variant: number): number {
  const low = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
  const high = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : low + 100;
  return Math.min(high, low + variant);
}

function stringFor(s: Schema, variant: number): string {
  if (s.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + variant)).toISOString();
  if (s.format === 'date') return `2026-01-${String(1 + (variant % 28)).padStart(2, '0')}`;
  if (s.format === 'uri' || s.format === 'url') return `https://example.com/dry-run/${variant}`;
  if (s.format === 'email') return `dry-run-${variant}@example.com`;
  if (s.format === 'uuid') return `00000000-0000-4000-8000-${String(variant).padStart(12, '0')}`;
  const text = `dry run ${variant}`;
  const min = Number(s.minLength) || 0;
  return (text.length < min ? text.padEnd(min, '.') : text).slice(0, Number(s.maxLength) || undefined);
}

// A value that follows a JSON Schema: what a dry run answers in place of a model or a tool. `variant` makes
// the n-th answer differ from the one before (a graph step run again sees new input) and picks the n-th
// of an enum's values (a router tries its routes in turn).
//
// The value is built within a byte budget, whatever the schema (an MCP server's tool schemas are never
// checked at save): past it, a second try builds the smallest value instead (required properties,
// minItems, minLength), and past it again the example is refused with SCHEMA_TOO_LARGE. Every byte is
// counted before it is made, so neither try allocates much past the budget.
import { DomainError, ErrorCode } from '../errors';

type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;

/** The most bytes of JSON an example takes: four times the smallest instance a saved schema may ask for. */
export const EXAMPLE_MAX_BYTES = 256 * 1024;

class OverBudget extends Error {}

/** Bytes of JSON made so far; `lean`: only what the schema requires. */
class Budget {
  private used = 0;

  constructor(
    readonly maxBytes: number,
    readonly lean: boolean,
  ) {}

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.maxBytes) throw new OverBudget();
  }
}

export function exampleOf(schema: unknown, variant = 0, maxBytes = EXAMPLE_MAX_BYTES): unknown {
  for (const lean of [false, true]) {
    try {
      return new Example(new Budget(maxBytes, lean), variant).of(schema, 0);
    } catch (error) {
      if (!(error instanceof OverBudget)) throw error;
    }
  }
  throw new DomainError(ErrorCode.SchemaTooLarge, `the schema's smallest value passes ${maxBytes} bytes (EXAMPLE_MAX_BYTES)`, {
    limit: maxBytes,
  });
}

class Example {
  constructor(
    private readonly budget: Budget,
    private readonly variant: number,
  ) {}

  of(schema: unknown, depth: number): unknown {
    if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return this.text(`dry run ${this.variant}`);
    const s = schema as Schema;
    if ('const' in s) return this.given(s.const);
    if (Array.isArray(s.enum) && s.enum.length) return this.given(s.enum[this.variant % s.enum.length]);
    if ('default' in s) return this.given(s.default);
    // An empty allOf asks nothing: its merge would be an uncounted {} (a schema like any other below instead).
    if (Array.isArray(s.allOf) && s.allOf.length) return merged(s.allOf.map((part) => this.of(part, depth + 1)));
    for (const key of ['oneOf', 'anyOf'] as const)
      if (Array.isArray(s[key]) && (s[key] as unknown[]).length) return this.of((s[key] as unknown[])[0], depth + 1);
    const type = Array.isArray(s.type) ? s.type.find((candidate) => candidate !== 'null') : s.type;
    switch (type ?? (s.properties ? 'object' : s.items ? 'array' : 'string')) {
      case 'object':
        return this.object(s, depth);
      case 'array':
        return this.array(s, depth);
      case 'integer':
      case 'number':
        return this.given(numberIn(s, this.variant));
      case 'boolean':
        return this.given(true);
      case 'null':
        return this.given(null);
      default:
        return this.string(s);
    }
  }

  /** Every property (only the required ones when lean), each with its name, colon and comma. */
  private object(s: Schema, depth: number): Record<string, unknown> {
    this.budget.charge(2);
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    const properties = Object.entries((s.properties as Record<string, unknown>) ?? {}).filter(
      ([name]) => !this.budget.lean || required.has(name),
    );
    const example: [string, unknown][] = [];
    for (const [name, property] of properties) {
      this.budget.charge(JSON.stringify(name).length + 2);
      example.push([name, this.of(property, depth + 1)]);
    }
    return Object.fromEntries(example);
  }

  /** minItems items, and at least one unless lean; item by item, so a huge minItems stops at the budget. */
  private array(s: Schema, depth: number): unknown[] {
    this.budget.charge(2);
    const minItems = Number(s.minItems) || 0;
    const example: unknown[] = [];
    for (let i = 0; i < Math.max(this.budget.lean ? 0 : 1, minItems); i++) {
      this.budget.charge(1);
      example.push(this.of(s.items, depth + 1));
    }
    return example;
  }

  private string(s: Schema): string {
    const formatted = formattedString(s, this.variant);
    if (formatted !== null) return this.text(formatted);
    const max = Number(s.maxLength) || Number.POSITIVE_INFINITY;
    // Never padded past maxLength (a minLength of a billion with a maxLength of 1 makes one character).
    const min = Math.min(Number(s.minLength) || 0, max);
    const base = this.budget.lean ? '' : `dry run ${this.variant}`;
    const length = Math.min(Math.max(base.length, min), max);
    // Counted before it is made: a minLength of a billion stops here.
    this.budget.charge(length + 2);
    return base.padEnd(length, '.').slice(0, length);
  }

  private text(value: string): string {
    this.budget.charge(JSON.stringify(value).length);
    return value;
  }

  /** A value the schema gives (const, enum, default, a number), counted by its JSON. */
  private given(value: unknown): unknown {
    this.budget.charge(jsonBytes(value, this.budget.maxBytes));
    return value;
  }
}

/** Bytes of `value` as JSON, counted without writing it; past `stopAt`, any number over it. */
function jsonBytes(value: unknown, stopAt: number): number {
  let bytes = 0;
  const stack = [value];
  while (stack.length && bytes <= stopAt) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object') {
      bytes += JSON.stringify(current)?.length ?? 4;
      continue;
    }
    const entries = Object.entries(current);
    bytes += 2 + Math.max(0, entries.length - 1);
    for (const [key, child] of entries) {
      if (!Array.isArray(current)) bytes += JSON.stringify(key).length + 1;
      stack.push(child);
    }
  }
  return bytes;
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

function formattedString(s: Schema, variant: number): string | null {
  if (s.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + variant)).toISOString();
  if (s.format === 'date') return `2026-01-${String(1 + (variant % 28)).padStart(2, '0')}`;
  if (s.format === 'uri' || s.format === 'url') return `https://example.com/dry-run/${variant}`;
  if (s.format === 'email') return `dry-run-${variant}@example.com`;
  if (s.format === 'uuid') return `00000000-0000-4000-8000-${String(variant).padStart(12, '0')}`;
  return null;
}

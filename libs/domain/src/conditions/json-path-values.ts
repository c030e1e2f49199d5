// How a JSONPath reads JSON values: own properties only (never `constructor` or `__proto__` from a
// prototype), array and string indexes (negative ones count from the end), `length` of arrays and strings.

export type Key = string | number;

const hasOwn = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);
const CANONICAL_INDEX = /^(0|[1-9]\d*)$/;

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

/** The value under `key`, undefined when there is none. */
export function childAt(value: unknown, key: Key): unknown {
  if (Array.isArray(value) || typeof value === 'string') {
    if (key === 'length') return value.length;
    const index = typeof key === 'number' ? key : CANONICAL_INDEX.test(key) ? Number(key) : NaN;
    if (!Number.isInteger(index)) return undefined;
    const at = index < 0 ? value.length + index : index;
    return at >= 0 && at < value.length ? value[at] : undefined;
  }
  if (!isContainer(value)) return undefined;
  const name = String(key);
  return hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

/** An array's elements or an object's values, in order; nothing for anything else (strings included). */
export function childrenOf(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  return isContainer(value) ? Object.values(value) : [];
}

export { isContainer };

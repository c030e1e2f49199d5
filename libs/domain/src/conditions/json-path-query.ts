// Applies a parsed JSONPath to data, segment by segment, counting every value it touches on the meter:
// the work of one query is bounded by the budget whatever the path or the data. No recursion over the
// data (a descent keeps its own stack), so a deep document cannot overflow the call stack either.
import type { ExpressionMeter } from './json-path-budget';
import { evaluateExpression, Unreadable } from './json-path-expression';
import { parseJsonPath, type Segment, type Selector } from './json-path-syntax';
import { childAt, childrenOf, isContainer, type Key } from './json-path-values';

const cache = new Map<string, Segment[]>();
const CACHE_SIZE = 500;

/** The parsed path, from a small cache: a webhook's rules are read again at every delivery. */
export function parsedJsonPath(path: string): Segment[] {
  let segments = cache.get(path);
  if (!segments) {
    segments = parseJsonPath(path);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(path, segments);
  }
  return segments;
}

/** Every value `path` selects in `data`, in document order (a descent visits a value before what is beneath it). */
export function queryJsonPath(data: unknown, path: string, meter: ExpressionMeter): unknown[] {
  let current: unknown[] = [data];
  for (const segment of parsedJsonPath(path)) {
    const next: unknown[] = [];
    const take = (value: unknown) => meter.hold(next.push(value));
    for (const value of current) {
      if (segment.descendant) eachDescendant(value, meter, (node) => select(segment.selector, node, take, meter));
      else select(segment.selector, value, take, meter);
    }
    current = next;
  }
  return current;
}

/** `value` itself, then every object and array beneath it, depth first in document order. */
function eachDescendant(value: unknown, meter: ExpressionMeter, visit: (node: unknown) => void): void {
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    const children = childrenOf(node);
    meter.visit(1 + children.length);
    visit(node);
    for (let i = children.length - 1; i >= 0; i--) if (isContainer(children[i])) stack.push(children[i]);
  }
}

function select(selector: Selector, value: unknown, take: (value: unknown) => void, meter: ExpressionMeter): void {
  switch (selector.kind) {
    case 'key':
      return selectKey(selector.key, value, take, meter);
    case 'union':
      return selectKeys(selector.keys, value, take, meter);
    case 'wildcard': {
      const children = childrenOf(value);
      meter.visit(children.length);
      return children.forEach(take);
    }
    case 'slice':
      return selectSlice(selector, value, take, meter);
    case 'filter':
      for (const child of childrenOf(value)) if (passes(selector.test, child, meter)) take(child);
      return;
    case 'script': {
      const key = scriptKey(selector.key, value, meter);
      return key === undefined ? undefined : selectKey(key, value, take, meter);
    }
  }
}

function selectKey(key: Key, value: unknown, take: (value: unknown) => void, meter: ExpressionMeter): void {
  meter.visit();
  const child = childAt(value, key);
  if (child !== undefined) take(child);
}

function selectKeys(keys: readonly Key[], value: unknown, take: (value: unknown) => void, meter: ExpressionMeter): void {
  for (const key of keys) selectKey(key, value, take, meter);
}

/** RFC 9535's slice, as jsonpath-plus applies it: arrays only, a step of 0 selects nothing. */
function selectSlice(
  { start, end, step }: Extract<Selector, { kind: 'slice' }>,
  value: unknown,
  take: (value: unknown) => void,
  meter: ExpressionMeter,
): void {
  if (!Array.isArray(value)) return;
  const by = step ?? 1;
  if (by === 0) return;
  const length = value.length;
  const normal = (index: number) => (index < 0 ? index + length : index);
  const clamp = (index: number) => (by > 0 ? Math.min(Math.max(index, 0), length) : Math.min(Math.max(index, -1), length - 1));
  const from = clamp(normal(start ?? (by > 0 ? 0 : length - 1)));
  const to = clamp(normal(end ?? (by > 0 ? length : -length - 1)));
  for (let i = from; by > 0 ? i < to : i > to; i += by) {
    meter.visit();
    take(value[i]);
  }
}

function passes(test: Parameters<typeof evaluateExpression>[0], candidate: unknown, meter: ExpressionMeter): boolean {
  try {
    return Boolean(evaluateExpression(test, candidate, meter));
  } catch (error) {
    if (error instanceof Unreadable) return false;
    throw error;
  }
}

/** `[(@.length - 1)]`: the name or index the script gives, undefined when it gives neither. */
function scriptKey(script: Parameters<typeof evaluateExpression>[0], value: unknown, meter: ExpressionMeter): Key | undefined {
  let key: unknown;
  try {
    key = evaluateExpression(script, value, meter);
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
  if (typeof key === 'number') return Number.isInteger(key) ? key : undefined;
  return typeof key === 'string' ? key : undefined;
}

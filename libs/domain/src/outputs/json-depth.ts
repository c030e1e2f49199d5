// How deep user JSON may nest: deeper data is refused where it comes in, before code that walks it
// recursively (sizes, summaries, placeholders) runs out of stack, and before MySQL is asked to store it.
import { DomainError, ErrorCode } from '../errors';

/**
 * MariaDB's JSON_VALID (the CHECK on every JSON column) refuses 32 levels of arrays and objects: deeper data
 * passed the old bound of 64 and failed as a CONSTRAINT error (a 500) when the run or the webhook event
 * was stored (issue #26).
 */
export const MAX_JSON_DEPTH = 31;

/** Iterative, so that measuring a 100,000-level document does not itself overflow the stack. */
export function jsonDepth(value: unknown, stopAt = MAX_JSON_DEPTH + 1): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest >= stopAt) return deepest;
    for (const child of Object.values(current as object)) stack.push([child, depth + 1]);
  }
  return deepest;
}

export function assertJsonDepth(value: unknown, field: string): void {
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw new DomainError(ErrorCode.ValidationFailed, `${field} nests deeper than ${MAX_JSON_DEPTH} levels`, { field });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether some key or string in `value` holds half a UTF-16 surrogate pair (JSON allows `"\ud800"`, Unicode does not). */
function holdsLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const current = stack.pop();
    if (typeof current === 'string' && LONE_SURROGATE.test(current)) return true;
    if (current === null || typeof current !== 'object') continue;
    // One by one: spreading an array of 500,000 values into push() would overflow the call stack.
    for (const key of Array.isArray(current) ? [] : Object.keys(current)) stack.push(key);
    for (const child of Object.values(current as object)) stack.push(child);
  }
  return false;
}

/**
 * Refuses, as a coded 4xx naming `field`, data a JSON column would refuse as a CONSTRAINT error (a 500):
 * nested deeper than MAX_JSON_DEPTH, or text with a lone surrogate, whose `\ud800` escape MariaDB's
 * JSON_VALID rejects. Checked where user data comes in, before anything is written.
 */
export function assertStorableJson(value: unknown, field: string): void {
  assertJsonDepth(value, field);
  if (holdsLoneSurrogate(value)) {
    throw new DomainError(ErrorCode.ValidationFailed, `${field} holds text with a lone UTF-16 surrogate (such as \\ud800 without its pair), which is not Unicode and cannot be stored`, { field });
  }
}

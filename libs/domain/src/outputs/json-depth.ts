// How deep user JSON may nest: deeper data is refused where it comes in, before code that walks it
// recursively (sizes, summaries, placeholders) runs out of stack.
import { DomainError, ErrorCode } from '../errors';

export const MAX_JSON_DEPTH = 64;

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

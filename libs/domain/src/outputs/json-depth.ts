// How deep user JSON may nest: deeper data is refused where it comes in, before code that walks it
// recursively (sizes, summaries, placeholders) runs out of stack, and before MySQL is asked to store it.
import { DomainError, ErrorCode } from '../errors';

/**
 * MariaDB's JSON_VALID (the CHECK on every JSON column) refuses 32 levels of arrays and objects: deeper data
 * passed the old bound of 64 and failed as a CONSTRAINT error (a 500) when the run or the webhook event
 * was stored (issue #26).
 */
export const MAX_JSON_DEPTH = 31;

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Half a UTF-16 surrogate pair (JSON allows `"\ud800"`, Unicode does not); the cheap test first, since text rarely holds any. */
const isLoneSurrogateIn = (text: string): boolean => SURROGATE.test(text) && LONE_SURROGATE.test(text);

type Problem = 'depth' | 'surrogate' | null;

/**
 * The first reason MySQL would refuse `value`, looking no deeper than `stopAt` levels: one iterative walk
 * (a 100,000-level document does not overflow the stack) that stacks only arrays and objects, so that
 * 400,000 numbers in a 1 MiB body cost a loop rather than 400,000 allocations. `depth` reports the deepest
 * level seen.
 */
function walk(value: unknown, stopAt: number, texts: boolean, depth = { deepest: 0 }): Problem {
  if (typeof value === 'string') return texts && isLoneSurrogateIn(value) ? 'surrogate' : null;
  if (!isContainer(value)) return null;
  const containers: object[] = [value];
  const depths: number[] = [1];
  const look = (child: unknown, level: number): Problem => {
    if (typeof child === 'string') return texts && isLoneSurrogateIn(child) ? 'surrogate' : null;
    if (isContainer(child)) {
      containers.push(child);
      depths.push(level);
    }
    return null;
  };
  while (containers.length) {
    const current = containers.pop()!;
    const level = depths.pop()!;
    depth.deepest = Math.max(depth.deepest, level);
    if (depth.deepest >= stopAt) return 'depth';
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) if (look(current[i], level + 1)) return 'surrogate';
      continue;
    }
    for (const key in current) {
      if ((texts && isLoneSurrogateIn(key)) || look((current as Record<string, unknown>)[key], level + 1)) return 'surrogate';
    }
  }
  return null;
}

/** How deep `value` nests (a scalar is 0), counting no further than `stopAt`. */
export function jsonDepth(value: unknown, stopAt = MAX_JSON_DEPTH + 1): number {
  const depth = { deepest: 0 };
  walk(value, stopAt, false, depth);
  return depth.deepest;
}

export function assertJsonDepth(value: unknown, field: string): void {
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw tooDeep(field);
}

const tooDeep = (field: string) =>
  new DomainError(ErrorCode.ValidationFailed, `${field} nests deeper than ${MAX_JSON_DEPTH} levels`, { field });

/**
 * Refuses, as a coded 4xx naming `field`, data a JSON column would refuse as a CONSTRAINT error (a 500):
 * nested deeper than MAX_JSON_DEPTH, or text with a lone surrogate, whose `\ud800` escape MariaDB's
 * JSON_VALID rejects. Checked where user data comes in, before anything is written.
 */
export function assertStorableJson(value: unknown, field: string): void {
  const problem = walk(value, MAX_JSON_DEPTH + 1, true);
  if (problem === 'depth') throw tooDeep(field);
  if (problem === 'surrogate') {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      `${field} holds text with a lone UTF-16 surrogate (such as \\ud800 without its pair), which is not Unicode and cannot be stored`,
      { field },
    );
  }
}

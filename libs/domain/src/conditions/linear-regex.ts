// Users' regular expressions (filter rules' `matches`, `pattern` in their JSON Schemas) run in RE2's
// linear-time engine: `^(a+)+$` against a long input costs microseconds, not the minutes a backtracking
// engine can take while it holds the process. RE2 refuses what needs backtracking (backreferences,
// lookarounds); such a pattern is refused when it is saved.
import { RE2JS } from 're2js';

export const MAX_PATTERN_LENGTH = 1000;
/** Longer input never matches: checking it would still be linear, but no pattern needs that much. */
export const MAX_MATCHED_LENGTH = 1_048_576;

const cache = new Map<string, RE2JS>();
const CACHE_SIZE = 500;

function compiled(pattern: string): RE2JS {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(pattern);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(pattern, regex);
  }
  return regex;
}

/** Null when RE2 runs the pattern, else why not (it is too long, or needs backtracking). */
export function linearRegexProblem(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return 'must be a regular expression as a string';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must have at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    compiled(pattern);
    return null;
  } catch (error) {
    return `is not a pattern RE2 runs (no backreferences or lookarounds): ${(error as Error).message}`;
  }
}

/** Whether `input` contains a match, as RegExp#test does; false for a pattern RE2 refuses or an input over the cap. */
export function linearTest(pattern: string, input: string): boolean {
  if (input.length > MAX_MATCHED_LENGTH || linearRegexProblem(pattern) !== null) return false;
  return compiled(pattern).matcher(input).find();
}

/** ajv's `code.regExp`: every `pattern` of a schema compiled with RE2 (compiling throws for one RE2 refuses). */
export const linearRegExpEngine = Object.assign(
  (pattern: string) => {
    const problem = linearRegexProblem(pattern);
    if (problem) throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 100))} ${problem}`);
    // ajv shares one compiled pattern per distinct toString(): each must name its own.
    return { test: (input: string) => linearTest(pattern, input), toString: () => `re2:${pattern}` };
  },
  { code: 'linearRegExpEngine' },
);

// Placeholders in prompts:
//   <<trigger_output>>                      the run's trigger data, <<trigger_output.user.name>> a field of it
//   <<step_output.{uuid}>>                  an earlier step's output, <<step_output.{uuid}.prices[0].price>>
//   <<step_output.{uuid}[-2].field|none>>   history form: [i] right after the uuid picks one of the step's
//                                           outputs (0 the oldest, -1 the latest), |text is a default
//   $previous_output, $previous_output.x    the output of the step just before (the trigger data first)
//   <<item>>, <<item.field>>, <<item_index>> inside a for_each loop: the element and its 0-based index
// Path segments: .name, [3], [-1] (from the end), ["any key"] / ['any key'], and .length on arrays.
// Dependency-free and deterministic: the run workflow's sandbox may import this module.
// Bounded: a path is read segment by segment (no wildcards, no descents: the work is the path's length),
// and a rendered prompt stops with EXPRESSION_BUDGET_EXCEEDED past MAX_RENDERED_CHARS, however many
// placeholders repeat however large a value.
import { DomainError, ErrorCode } from '../errors';

export type PathSegment = string | number;

export interface PlaceholderRef {
  raw: string;
  kind: 'trigger' | 'step' | 'previous' | 'item' | 'item_index';
  step_uuid?: string;
  /** History index of a step's outputs: -1 is the latest, 0 the oldest kept. */
  index?: number;
  path: PathSegment[];
  default?: string;
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const NAME = '[A-Za-z_$][\\w$-]*';
const QUOTED = `"(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'`;
const SEGMENT = `\\.${NAME}|\\[(?:-?\\d+|${QUOTED})\\]`;
const PATH = `(?:${SEGMENT})*`;
const STEP = new RegExp(`^step_output\\.(${UUID})(?:\\[(-?\\d+)\\])?(${PATH})(?:\\|([\\s\\S]*))?$`);
const TRIGGER = new RegExp(`^trigger_output(${PATH})(?:\\|([\\s\\S]*))?$`);
const ITEM = new RegExp(`^(item_index|item(${PATH}))(?:\\|([\\s\\S]*))?$`);
/** One scan for both forms, so text a resolver returns is never scanned again. */
/** A placeholder's opening with no `>>` before the next `<<` or the end. */
const UNCLOSED = /<<(?=trigger_output|step_output|item)(?![^<>]*>>)/g;
const TOKEN = new RegExp(`<<([^<>]*)>>|\\$previous_output(?![\\w$])(${PATH})`, 'g');
const SEGMENTS = new RegExp(`\\.(${NAME})|\\[(-?\\d+)\\]|\\[(${QUOTED})\\]`, 'g');

function unquote(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** `.a[0]["b c"]` -> ['a', 0, 'b c']. Text that is not a path segment is skipped. */
export function parsePath(text: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const match of text.matchAll(SEGMENTS)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(unquote(match[3]));
  }
  return segments;
}

function parseInner(raw: string, inner: string): PlaceholderRef | null {
  const step = STEP.exec(inner);
  if (step) {
    return {
      raw,
      kind: 'step',
      step_uuid: step[1].toLowerCase(),
      ...(step[2] !== undefined ? { index: Number(step[2]) } : {}),
      path: parsePath(step[3]),
      ...(step[4] !== undefined ? { default: step[4] } : {}),
    };
  }
  const trigger = TRIGGER.exec(inner);
  if (trigger) {
    return { raw, kind: 'trigger', path: parsePath(trigger[1]), ...(trigger[2] !== undefined ? { default: trigger[2] } : {}) };
  }
  const item = ITEM.exec(inner);
  if (item) {
    const isIndex = item[1] === 'item_index';
    return {
      raw,
      kind: isIndex ? 'item_index' : 'item',
      path: isIndex ? [] : parsePath(item[2]),
      ...(item[3] !== undefined ? { default: item[3] } : {}),
    };
  }
  return null;
}

/** The placeholder a TOKEN match stands for; null for a `<<...>>` we do not understand. */
function refOf(match: RegExpMatchArray | string[]): PlaceholderRef | null {
  const [raw, inner, previousPath] = match;
  if (inner !== undefined) return parseInner(raw, inner.trim());
  return { raw, kind: 'previous', path: parsePath(previousPath ?? '') };
}

/** Every well-formed placeholder in the text, in order of appearance. */
export function findPlaceholders(text: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const ref = refOf(match);
    if (ref) refs.push(ref);
  }
  return refs;
}

/** The `<<...>>` tokens that are not a placeholder we understand, e.g. `<<step_output.>>`, `<<whatever>>`. */
export function findMalformedPlaceholders(text: string): string[] {
  const malformed = [...text.matchAll(TOKEN)].filter((match) => match[1] !== undefined && refOf(match) === null).map((match) => match[0]);
  // `<<trigger_output.x` with no `>>`: as written it would reach the model as text, never the data.
  const unclosed = [...text.matchAll(UNCLOSED)].map((match) => text.slice(match.index, match.index + 40).split(/\n|(?<=.)<</)[0]);
  return [...malformed, ...unclosed];
}

export function hasPlaceholders(text: string): boolean {
  return findPlaceholders(text).length > 0;
}

/**
 * How long a rendered prompt may grow: above what a model takes (a 5 MiB output passes into a prompt
 * whole), far below what `<<trigger_output>>` written thousands of times over 1 MiB of data would build.
 */
export const MAX_RENDERED_CHARS = 16 * 1024 * 1024;

/**
 * Replaces each placeholder with what `resolve` returns for it, in one pass: placeholders inside the
 * returned text stay as they are. Malformed `<<...>>` tokens and other text are kept. Stops at the first
 * placeholder that takes the text past `maxLength`, before resolving the rest.
 */
export function renderTemplate(text: string, resolve: (ref: PlaceholderRef) => string, maxLength = MAX_RENDERED_CHARS): string {
  let length = text.length;
  return text.replace(TOKEN, (...match: string[]) => {
    const ref = refOf(match);
    const value = ref ? resolve(ref) : match[0];
    length += value.length - match[0].length;
    if (length > maxLength) {
      throw new DomainError(
        ErrorCode.ExpressionBudgetExceeded,
        `The prompt's placeholders make it longer than ${maxLength} characters (at ${match[0].slice(0, 80)}): refer to smaller parts of the data`,
        {
          max_characters: maxLength,
          placeholder: match[0].slice(0, 200),
        },
      );
    }
    return value;
  });
}

const hasOwn = (value: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(value, key);

/**
 * Safe field access: undefined when any segment is missing. Only own properties (never `constructor` or
 * `__proto__`); negative indexes count from the end of an array; `length` of an array or a string.
 */
export function getPath(value: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = value;
  for (const segment of path) {
    if (segment === 'length' && (Array.isArray(current) || typeof current === 'string')) {
      current = current.length;
    } else if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : /^-?\d+$/.test(segment) ? Number(segment) : NaN;
      if (!Number.isInteger(index)) return undefined;
      const at = index < 0 ? current.length + index : index;
      if (at < 0 || at >= current.length) return undefined;
      current = current[at];
    } else if (current !== null && typeof current === 'object' && hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Picks an entry of a history (oldest first): no index is the latest, negative indexes count back from it. */
export function pickFromHistory<T>(history: readonly T[], index: number | undefined): T | undefined {
  if (history.length === 0) return undefined;
  if (index === undefined) return history[history.length - 1];
  const at = index < 0 ? history.length + index : index;
  return at >= 0 && at < history.length ? history[at] : undefined;
}

/** Where placeholder values come from in a run. */
export interface PlaceholderSources {
  /** The run's trigger data. */
  trigger: unknown;
  /** The output of the step just before; the trigger data for the first step. */
  previous: unknown;
  /** A step's outputs in this run, oldest first; empty when it has not run. */
  stepHistory: (stepUuid: string) => readonly unknown[];
  /** Inside a for_each loop: the current element and its index. */
  item?: { value: unknown; index: number };
}

/** The value a placeholder stands for; its `|default` text (or undefined) when there is none. */
export function resolvePlaceholder(ref: PlaceholderRef, sources: PlaceholderSources): unknown {
  const base =
    ref.kind === 'trigger'
      ? sources.trigger
      : ref.kind === 'previous'
        ? sources.previous
        : ref.kind === 'item'
          ? sources.item?.value
          : ref.kind === 'item_index'
            ? sources.item?.index
            : pickFromHistory(sources.stepHistory(ref.step_uuid ?? ''), ref.index);
  const value = getPath(base, ref.path);
  return value === undefined ? ref.default : value;
}

/** How a value reads in a prompt: strings as they are, anything else as pretty JSON; nothing as ''. */
export function formatForPrompt(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2) ?? '';
}

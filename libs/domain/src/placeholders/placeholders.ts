// Placeholders in prompts: `<<trigger_output>>`, `<<trigger_output.path>>`, `<<step_output.{uuid}>>`,
// `<<step_output.{uuid}[-2].field|default>>` and the alias `$previous_output` (+ `.path`).
// Dependency-free: the run workflow's sandbox imports this module too.

export type PathSegment = string | number;

export interface PlaceholderRef {
  raw: string;
  kind: 'trigger' | 'step' | 'previous';
  step_uuid?: string;
  /** History index of a step's outputs: -1 is the latest, 0 the oldest kept. */
  index?: number;
  path: PathSegment[];
  default?: string;
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const PATH = '(?:\\.[A-Za-z_$][\\w$-]*|\\[\\d+\\])*';
const ANY_PLACEHOLDER = /<<([^<>]*)>>/g;
const STEP = new RegExp(`^step_output\\.(${UUID})(?:\\[(-?\\d+)\\])?(${PATH})(?:\\|(.*))?$`);
const TRIGGER = new RegExp(`^trigger_output(${PATH})(?:\\|(.*))?$`);
const PREVIOUS = new RegExp(`\\$previous_output(${PATH})`, 'g');

export function parsePath(text: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const match of text.matchAll(/\.([A-Za-z_$][\w$-]*)|\[(\d+)\]/g)) {
    segments.push(match[1] !== undefined ? match[1] : Number(match[2]));
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
  return null;
}

/** Every well-formed placeholder in the text, in order of appearance. */
export function findPlaceholders(text: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  for (const match of text.matchAll(ANY_PLACEHOLDER)) {
    const ref = parseInner(match[0], match[1].trim());
    if (ref) refs.push(ref);
  }
  for (const match of text.matchAll(PREVIOUS)) {
    refs.push({ raw: match[0], kind: 'previous', path: parsePath(match[1]) });
  }
  return refs;
}

/** The `<<...>>` tokens that are not a placeholder we understand, e.g. `<<step_output.>>`. */
export function findMalformedPlaceholders(text: string): string[] {
  return [...text.matchAll(ANY_PLACEHOLDER)].filter((m) => parseInner(m[0], m[1].trim()) === null).map((m) => m[0]);
}

export function hasPlaceholders(text: string): boolean {
  return findPlaceholders(text).length > 0;
}

/** Replaces each placeholder with what `resolve` returns for it; other text is kept as is. */
export function renderTemplate(text: string, resolve: (ref: PlaceholderRef) => string): string {
  const withTokens = text.replace(ANY_PLACEHOLDER, (raw, inner: string) => {
    const ref = parseInner(raw, inner.trim());
    return ref ? resolve(ref) : raw;
  });
  return withTokens.replace(PREVIOUS, (raw, path: string) => resolve({ raw, kind: 'previous', path: parsePath(path) }));
}

/** Safe field access: undefined when any segment is missing. */
export function getPath(value: unknown, path: PathSegment[]): unknown {
  let current: unknown = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Picks an entry of a rolling history: negative indexes count back from the latest. */
export function pickFromHistory<T>(history: readonly T[], index: number | undefined): T | undefined {
  if (history.length === 0) return undefined;
  if (index === undefined) return history[history.length - 1];
  return index < 0 ? history[history.length + index] : history[index];
}

export function formatForPrompt(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

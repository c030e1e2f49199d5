// The JSONPath workflows use, parsed by us rather than handed to a general engine whose work we cannot
// bound: `$` then segments `.name`, `['name']`, `[3]`, `[-1]`, `.*`, `[*]`, `[start:end:step]`, unions
// `[0,2]` / `['a','b']`, filters `[?(@.price > 10)]`, scripts `[(@.length - 1)]`, and `..` (recursive
// descent) before any of them. What a path may select is counted here so that saving can refuse one that
// fans out: every descent and wildcard multiplies the work an evaluation does on deep or wide data.
import { parseExpression, type Expression } from './json-path-expression';
import { JsonPathSyntaxError, Scanner } from './json-path-scanner';
import type { Key } from './json-path-values';

export type Selector =
  | { kind: 'key'; key: Key }
  | { kind: 'wildcard' }
  | { kind: 'slice'; start: number | null; end: number | null; step: number | null }
  | { kind: 'union'; keys: Key[] }
  | { kind: 'filter'; test: Expression }
  | { kind: 'script'; key: Expression };

export interface Segment {
  /** `..`: the selector applies to the value and every value beneath it. */
  descendant: boolean;
  selector: Selector;
}

export const MAX_JSON_PATH_LENGTH = 2000;
/** What saving accepts: one `..`, and three selectors that pick several values (wildcards, slices, unions, filters). */
export const MAX_RECURSIVE_DESCENTS = 1;
export const MAX_FAN_OUTS = 3;
export const MAX_UNION_KEYS = 20;

/** Characters a dot name cannot hold: they start other syntax (`$.content-type`, `$.$ref` are names). */
const NAME = /^[^.[\]()'"?@,*\s]+/;

/** The segments of `path`; throws JsonPathSyntaxError naming what is wrong and where. */
export function parseJsonPath(path: string): Segment[] {
  if (path.length > MAX_JSON_PATH_LENGTH) throw new JsonPathSyntaxError(`has more than ${MAX_JSON_PATH_LENGTH} characters`);
  const scanner = new Scanner(path);
  if (!scanner.eat('$')) scanner.fail('expected the root $ first');
  const segments: Segment[] = [];
  while (!scanner.done) segments.push(segment(scanner));
  return segments;
}

function segment(scanner: Scanner): Segment {
  if (scanner.eat('..')) {
    if (scanner.peek() === '.') scanner.fail('expected a name, * or [ after ..');
    return { descendant: true, selector: scanner.peek() === '[' ? bracket(scanner) : dotted(scanner) };
  }
  if (scanner.eat('.')) return { descendant: false, selector: dotted(scanner) };
  if (scanner.peek() === '[') return { descendant: false, selector: bracket(scanner) };
  return scanner.fail('expected . or [');
}

function dotted(scanner: Scanner): Selector {
  if (scanner.eat('*')) return { kind: 'wildcard' };
  const name = NAME.exec(scanner.text.slice(scanner.pos, scanner.pos + MAX_JSON_PATH_LENGTH))?.[0] ?? scanner.fail('expected a name or *');
  scanner.pos += name.length;
  return { kind: 'key', key: name };
}

function bracket(scanner: Scanner): Selector {
  scanner.expect('[');
  const selector = bracketBody(scanner);
  scanner.expect(']');
  return selector;
}

function bracketBody(scanner: Scanner): Selector {
  if (scanner.eat('*')) return { kind: 'wildcard' };
  if (scanner.eat('?(')) return { kind: 'filter', test: closedExpression(scanner) };
  if (scanner.eat('(')) return { kind: 'script', key: closedExpression(scanner) };
  if (scanner.peek() === ':' || (scanner.isIntegerStart() && sliceAhead(scanner))) return slice(scanner);
  const keys: Key[] = [key(scanner)];
  while (scanner.eat(',')) {
    if (keys.length === MAX_UNION_KEYS) scanner.fail(`a union takes at most ${MAX_UNION_KEYS} names or indexes`);
    keys.push(key(scanner));
  }
  return keys.length === 1 ? { kind: 'key', key: keys[0] } : { kind: 'union', keys };
}

function key(scanner: Scanner): Key {
  return scanner.isIntegerStart() ? scanner.integer() : scanner.quoted();
}

function closedExpression(scanner: Scanner): Expression {
  const expression = parseExpression(scanner);
  scanner.skipSpaces();
  scanner.expect(')');
  return expression;
}

/** Whether the integer at the cursor is a slice's start (`[1:]`) rather than an index or a union member. */
function sliceAhead(scanner: Scanner): boolean {
  const rest = /^-?\d*/.exec(scanner.text.slice(scanner.pos, scanner.pos + 20))![0];
  return scanner.peek(rest.length) === ':';
}

function slice(scanner: Scanner): Selector {
  const bound = () => (scanner.isIntegerStart() ? scanner.integer() : null);
  const start = bound();
  scanner.expect(':');
  const end = bound();
  const step = scanner.eat(':') ? bound() : null;
  return { kind: 'slice', start, end, step };
}

export interface PathShape {
  descents: number;
  fanOuts: number;
}

/** How a parsed path fans out: its recursive descents, and its selectors that pick several values. */
export function shapeOf(segments: readonly Segment[]): PathShape {
  return {
    descents: segments.filter((segment) => segment.descendant).length,
    fanOuts: segments.filter(({ selector }) => ['wildcard', 'slice', 'union', 'filter'].includes(selector.kind)).length,
  };
}

/**
 * Null when `path` is a JSONPath saving accepts, else what is wrong with it, worded to follow a field's
 * name: `filter_rules.path has 3 recursive descents (..): ...`.
 */
export function jsonPathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'must be a JSONPath as a string, such as $.order.total';
  let segments: Segment[];
  try {
    segments = parseJsonPath(path);
  } catch (error) {
    if (!(error instanceof JsonPathSyntaxError)) throw error;
    return `is not a JSONPath such as $.order.total (${error.message})`;
  }
  const { descents, fanOuts } = shapeOf(segments);
  if (descents > MAX_RECURSIVE_DESCENTS) {
    return `has ${descents} recursive descents (..): a path may have ${MAX_RECURSIVE_DESCENTS}, since each one multiplies the work on deep data`;
  }
  if (fanOuts > MAX_FAN_OUTS) {
    return `has ${fanOuts} wildcards, slices, unions or filters: a path may have ${MAX_FAN_OUTS}, since each one multiplies the work on wide data`;
  }
  return null;
}

// The expressions of `[?(...)]` filters and `[(...)]` scripts: `@` and its members (`@.price`, `@['a b']`,
// `@[0]`, `@.length`), literals, `! -`, `* / %`, `+ -`, `< <= > >=`, `== != === !==`, `&& ||` and
// parentheses, with JavaScript's precedence. No calls, no regular expressions, nothing that builds text:
// each step costs one visit of the meter, so a filter's work is its size times the candidates it tests.
import type { ExpressionMeter } from './json-path-budget';
import { MAX_EXPRESSION_NESTING, type Scanner } from './json-path-scanner';
import { childAt, isContainer, type Key } from './json-path-values';

type BinaryOperator = '||' | '&&' | '===' | '!==' | '==' | '!=' | '<=' | '>=' | '<' | '>' | '+' | '-' | '*' | '/' | '%';

export type Expression =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'current'; members: Key[] }
  | { kind: 'not' | 'negate'; operand: Expression }
  | { kind: 'binary'; operator: BinaryOperator; left: Expression; right: Expression };

/** Loosest first; within a level, longer operators before their prefixes (`===` before `==`, `<=` before `<`). */
const LEVELS: BinaryOperator[][] = [['||'], ['&&'], ['===', '!==', '==', '!='], ['<=', '>=', '<', '>'], ['+', '-'], ['*', '/', '%']];
const NUMBER = /^(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/** Parses one expression at the scanner's position, stopping before the `)` that closes it. */
export function parseExpression(scanner: Scanner): Expression {
  return new ExpressionParser(scanner).binary(0, 0);
}

class ExpressionParser {
  constructor(private readonly scanner: Scanner) {}

  binary(level: number, nesting: number): Expression {
    if (level === LEVELS.length) return this.unary(nesting);
    let left = this.binary(level + 1, nesting);
    for (;;) {
      this.scanner.skipSpaces();
      const operator = LEVELS[level].find((candidate) => this.scanner.startsWith(candidate));
      if (!operator) return left;
      this.scanner.pos += operator.length;
      left = { kind: 'binary', operator, left, right: this.binary(level + 1, nesting) };
    }
  }

  private unary(nesting: number): Expression {
    if (nesting > MAX_EXPRESSION_NESTING) this.scanner.fail(`a filter nests deeper than ${MAX_EXPRESSION_NESTING} levels`);
    this.scanner.skipSpaces();
    if (this.scanner.peek() === '!' && this.scanner.peek(1) !== '=') {
      this.scanner.pos++;
      return { kind: 'not', operand: this.unary(nesting + 1) };
    }
    if (this.scanner.eat('-')) return { kind: 'negate', operand: this.unary(nesting + 1) };
    return this.primary(nesting);
  }

  private primary(nesting: number): Expression {
    const { scanner } = this;
    if (scanner.eat('(')) {
      const inner = this.binary(0, nesting + 1);
      scanner.skipSpaces();
      scanner.expect(')');
      return inner;
    }
    if (scanner.eat('@')) return { kind: 'current', members: this.members() };
    if (scanner.peek() === "'" || scanner.peek() === '"') return { kind: 'literal', value: scanner.quoted() };
    const rest = scanner.text.slice(scanner.pos, scanner.pos + 40);
    const number = NUMBER.exec(rest);
    if (number) {
      scanner.pos += number[0].length;
      return { kind: 'literal', value: Number(number[0]) };
    }
    const word = IDENTIFIER.exec(rest)?.[0];
    const literals: Record<string, boolean | null> = { true: true, false: false, null: null };
    if (word !== undefined && word in literals) {
      scanner.pos += word.length;
      return { kind: 'literal', value: literals[word] };
    }
    return scanner.fail('expected @, a number, a quoted string, true, false or null');
  }

  /** `.name`, `['name']`, `[3]` after `@`. */
  private members(): Key[] {
    const { scanner } = this;
    const members: Key[] = [];
    for (;;) {
      if (scanner.startsWith('.') && !scanner.startsWith('..')) {
        scanner.pos++;
        const name = IDENTIFIER.exec(scanner.text.slice(scanner.pos, scanner.pos + 200))?.[0] ?? scanner.fail('expected a member name');
        scanner.pos += name.length;
        members.push(name);
      } else if (scanner.eat('[')) {
        scanner.skipSpaces();
        members.push(scanner.isIntegerStart() ? scanner.integer() : scanner.quoted());
        scanner.skipSpaces();
        scanner.expect(']');
      } else {
        return members;
      }
    }
  }
}

/** Reading a member of nothing (`@.a.b` where `a` is missing): the candidate is passed over, as jsonpath-plus did. */
export class Unreadable extends Error {}

/** The value of `expression` with `@` standing for `current`. */
export function evaluateExpression(expression: Expression, current: unknown, meter: ExpressionMeter): unknown {
  meter.visit();
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'current': {
      let value = current;
      for (const key of expression.members) {
        if (value === undefined || value === null) throw new Unreadable();
        meter.visit();
        value = childAt(value, key);
      }
      return value;
    }
    case 'not':
      return !evaluateExpression(expression.operand, current, meter);
    case 'negate': {
      const operand = evaluateExpression(expression.operand, current, meter);
      return isContainer(operand) ? NaN : -(operand as number);
    }
    case 'binary':
      return binary(expression, current, meter);
  }
}

function binary({ operator, left, right }: Extract<Expression, { kind: 'binary' }>, current: unknown, meter: ExpressionMeter): unknown {
  const a = evaluateExpression(left, current, meter);
  if (operator === '||') return a || evaluateExpression(right, current, meter);
  if (operator === '&&') return a && evaluateExpression(right, current, meter);
  const b = evaluateExpression(right, current, meter);
  // Objects and arrays are never turned into text or numbers (that could cost their whole size): they are
  // equal only to themselves and neither less nor greater than anything.
  if (isContainer(a) || isContainer(b)) {
    if (operator === '==' || operator === '===') return a === b;
    if (operator === '!=' || operator === '!==') return a !== b;
    return ['<', '<=', '>', '>='].includes(operator) ? false : NaN;
  }
  if (typeof a === 'string') meter.visitText(a.length);
  if (typeof b === 'string') meter.visitText(b.length);
  return primitive(operator, a as Primitive, b as Primitive);
}

type Primitive = string | number | boolean | null | undefined;

// JavaScript's loose equality (2 == "2") is what filters written for jsonpath-plus expect.
function primitive(operator: BinaryOperator, a: Primitive, b: Primitive): unknown {
  switch (operator) {
    case '==':
      return a == b;
    case '!=':
      return a != b;
    case '===':
      return a === b;
    case '!==':
      return a !== b;
    case '<':
      return (a as number) < (b as number);
    case '<=':
      return (a as number) <= (b as number);
    case '>':
      return (a as number) > (b as number);
    case '>=':
      return (a as number) >= (b as number);
    // Numbers only: `+` on text would build text, each step up to the data's size.
    case '+':
      return typeof a === 'number' && typeof b === 'number' ? a + b : NaN;
    case '-':
      return (a as number) - (b as number);
    case '*':
      return (a as number) * (b as number);
    case '/':
      return (a as number) / (b as number);
    case '%':
      return (a as number) % (b as number);
    default:
      return undefined;
  }
}

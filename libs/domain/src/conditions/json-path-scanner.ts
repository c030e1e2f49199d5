// A cursor over a JSONPath's text shared by the path parser and the filter-expression parser: one
// position, one way to fail (naming where), one reading of quoted names and integers.

export class JsonPathSyntaxError extends Error {}

/** How deep parentheses and `!`/`-` chains may nest in a filter: the parser recurses on them. */
export const MAX_EXPRESSION_NESTING = 32;

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export class Scanner {
  pos = 0;

  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.pos);
  }

  eat(token: string): boolean {
    if (!this.startsWith(token)) return false;
    this.pos += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.eat(token)) this.fail(`expected ${token}`);
  }

  skipSpaces(): void {
    while (/\s/.test(this.peek())) this.pos++;
  }

  fail(message: string): never {
    const found = this.done ? 'the end' : JSON.stringify(this.text.slice(this.pos, this.pos + 10));
    throw new JsonPathSyntaxError(`${message} at position ${this.pos}, found ${found}`);
  }

  /** `'a b'` or `"a b"`, with backslash escapes (\\, \', \", \n, \uXXXX...). */
  quoted(): string {
    const quote = this.peek();
    if (quote !== "'" && quote !== '"') this.fail('expected a quoted name');
    this.pos++;
    let value = '';
    for (;;) {
      if (this.done) this.fail(`expected the closing ${quote}`);
      const char = this.text[this.pos++];
      if (char === quote) return value;
      if (char !== '\\') {
        value += char;
        continue;
      }
      const escaped = this.text[this.pos++] ?? this.fail('expected an escaped character');
      if (escaped === 'u') {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('expected four hex digits after \\u');
        value += String.fromCharCode(parseInt(hex, 16));
        this.pos += 4;
      } else {
        value += ESCAPES[escaped] ?? escaped;
      }
    }
  }

  /** An integer as JSONPath writes indexes: `0`, `12`, `-3`; no leading zeros, no `-0`. */
  integer(): number {
    const match = /^-?(0|[1-9]\d*)/.exec(this.text.slice(this.pos, this.pos + 20));
    if (!match || match[0] === '-0') this.fail('expected an integer');
    const value = Number(match[0]);
    if (!Number.isSafeInteger(value)) this.fail('expected a smaller integer');
    this.pos += match[0].length;
    return value;
  }

  isIntegerStart(): boolean {
    return /[-\d]/.test(this.peek());
  }
}

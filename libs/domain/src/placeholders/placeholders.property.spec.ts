// Placeholders over random documents and random templates: a path reads at most a few properties per
// segment (counted by a Proxy around the data, not timed), and a template renders to at most its budget of
// characters or stops with EXPRESSION_BUDGET_EXCEEDED before resolving what follows, however many
// placeholders repeat however large a value. Documents and templates are small, so the file runs in about a second.
import fc from 'fast-check';
import { DomainError, ErrorCode } from '../errors';
import { anyDocument } from '../conditions/json-path.testing';
import { findPlaceholders, getPath, parsePath, renderTemplate, type PathSegment } from './placeholders';

/** `value` behind Proxies that count every property read, at any depth. */
function counted(value: unknown, reads: { count: number }): unknown {
  if (value === null || typeof value !== 'object') return value;
  return new Proxy(value, {
    get: (target, key, receiver) => {
      reads.count++;
      return counted(Reflect.get(target, key, receiver), reads);
    },
    getOwnPropertyDescriptor: (target, key) => {
      reads.count++;
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    has: (target, key) => {
      reads.count++;
      return Reflect.has(target, key);
    },
  });
}

const segment: fc.Arbitrary<PathSegment> = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'v', 'length', 'constructor', '__proto__', '0'),
  fc.integer({ min: -4, max: 4 }),
);
const UUID = '0b8e3c1a-2f4d-4e5a-9b6c-7d8e9f0a1b2c';

const fragment = fc.constantFrom(
  '<<trigger_output>>',
  '<<trigger_output.a>>',
  '<<trigger_output.a[0].b|none>>',
  `<<step_output.${UUID}>>`,
  `<<step_output.${UUID}[-1].v>>`,
  '<<item>>',
  '<<item_index>>',
  '$previous_output',
  '$previous_output.a[1]',
  '<<',
  '>>',
  '<<trigger_output.a',
  '["x"]',
  "['y]",
  '.a',
  '[-',
  '|',
  'text ',
  '\n',
  '<<nope>>',
);
const template = fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join(''));

describe('Placeholders (properties)', () => {
  it('read a path with at most three property reads per segment, whatever the document', () => {
    fc.assert(
      fc.property(anyDocument, fc.array(segment, { maxLength: 12 }), (data, path) => {
        const reads = { count: 0 };
        const value = getPath(counted(data, reads), path);
        expect(reads.count).toBeLessThanOrEqual(3 * path.length);
        expect(JSON.stringify(value)).toEqual(JSON.stringify(getPath(data, path)));
      }),
      { numRuns: 300 },
    );
  });

  it('parse paths no longer than their text', () => {
    fc.assert(
      fc.property(template, (text) => {
        for (const ref of findPlaceholders(text)) {
          expect(text).toContain(ref.raw);
          expect(ref.path.length).toBeLessThanOrEqual(ref.raw.length);
        }
        expect(parsePath(text).length).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 300 },
    );
  });

  it('render to at most the budget, or stop with EXPRESSION_BUDGET_EXCEEDED before resolving the rest', () => {
    fc.assert(
      fc.property(template, fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 10, max: 20_000 }), (text, valueLength, maxLength) => {
        let resolved = 0;
        const resolve = () => {
          resolved++;
          return 'x'.repeat(valueLength);
        };
        const placeholders = findPlaceholders(text).length;
        let rendered: string | DomainError;
        try {
          rendered = renderTemplate(text, resolve, maxLength);
        } catch (error) {
          rendered = error as DomainError;
        }
        if (typeof rendered === 'string') {
          // The template's own text is bounded where it is saved; what placeholders add is bounded here.
          expect(rendered.length).toBeLessThanOrEqual(Math.max(maxLength, text.length));
          expect(resolved).toBe(placeholders);
        } else {
          expect(rendered).toBeInstanceOf(DomainError);
          expect(rendered.code).toBe(ErrorCode.ExpressionBudgetExceeded);
          // The first placeholder past the line stops it: no more values are built than the budget can hold, plus that one.
          expect(resolved).toBeLessThanOrEqual(Math.floor(maxLength / valueLength) + 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stop a prompt that repeats a large value thousands of times after the first few', () => {
    const text = '<<trigger_output>>'.repeat(5000);
    let resolved = 0;
    const megabyte = 'y'.repeat(1024 * 1024);
    const error = (() => {
      try {
        renderTemplate(text, () => (resolved++, megabyte));
      } catch (caught) {
        return caught as DomainError;
      }
    })();
    expect(error).toMatchObject({ code: ErrorCode.ExpressionBudgetExceeded, details: { max_characters: 16 * 1024 * 1024 } });
    expect(resolved).toBe(16); // the 16th MiB, with the rest of the template, passes 16 Mi characters
  });
});

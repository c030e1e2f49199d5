import { byteSize, markdownFor, MAX_SUMMARY, summarizeOutput } from './summary';

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe(summarizeOutput.name, () => {
  describe('text', () => {
    it('keeps the first sentence, with an ellipsis when there is more', () => {
      expect(summarizeOutput('Prices fell. Details follow.')).toBe('Prices fell. …');
      expect(summarizeOutput('Is it up? Yes.')).toBe('Is it up? …');
    });

    it('keeps the first line of a longer text, without markdown markers', () => {
      expect(summarizeOutput('# Weekly report\n\nAll good')).toBe('Weekly report …');
      expect(summarizeOutput('- first point\n- second')).toBe('first point …');
      expect(summarizeOutput('# Title only')).toBe('Title only');
    });

    it('keeps a single sentence as it is, trimmed and on one line', () => {
      expect(summarizeOutput('  All   good  ')).toBe('All good');
      expect(summarizeOutput('3.5 percent up')).toBe('3.5 percent up');
    });

    it('says when the text is empty', () => {
      expect(summarizeOutput('')).toBe('Empty text');
      expect(summarizeOutput(' \n ')).toBe('Empty text');
    });

    it('stays within the limit, ending in an ellipsis', () => {
      const summary = summarizeOutput('x'.repeat(5000));
      expect(summary).toHaveLength(MAX_SUMMARY);
      expect(summary.endsWith('…')).toBe(true);
    });

    it('does not split a character made of two code units', () => {
      const summary = summarizeOutput('😀'.repeat(400));
      expect(Array.from(summary)).toHaveLength(MAX_SUMMARY);
      expect(summary).not.toMatch(/[\uD800-\uDBFF]…$/);
    });
  });

  describe('arrays', () => {
    it('gives the length and the keys of the items', () => {
      expect(summarizeOutput([{ product: 'a', price: 1 }, { product: 'b', price: 2, url: 'u' }])).toBe('Array of 2 items; items have product, price, url');
    });

    it('gives the first values of other arrays', () => {
      expect(summarizeOutput(['a', 2, null, [1], { a: 1 }])).toBe('Array of 5 items: "a", 2, null, 1 item, object (1 key)');
      expect(summarizeOutput(Array.from({ length: 20 }, (_, i) => i))).toBe('Array of 20 items: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 (+8 more)');
    });

    it('says when it is empty and counts one item as one', () => {
      expect(summarizeOutput([])).toBe('Empty array');
      expect(summarizeOutput([{}])).toBe('Array of 1 item');
    });
  });

  describe('objects', () => {
    it('names the keys with the size of arrays and objects and the start of strings', () => {
      expect(summarizeOutput({ prices: [1, 2, 3, 4], summary: 'ok', meta: { a: 1, b: 2 }, one: [1], n: 3, flag: false, none: null })).toBe(
        'Object with prices: 4 items, summary: "ok", meta: object (2 keys), one: 1 item, n: 3, flag: false, none: null',
      );
    });

    it('clips long strings inside', () => {
      expect(summarizeOutput({ text: 'word '.repeat(20) })).toBe(`Object with text: "${'word '.repeat(8).trim()}…"`);
    });

    it('counts the keys it does not name', () => {
      expect(summarizeOutput(keys(15))).toMatch(/k11: 11 \(\+3 more\)$/);
    });

    it('says when it is empty', () => {
      expect(summarizeOutput({})).toBe('Empty object');
    });

    it('stays within the limit', () => {
      expect(summarizeOutput({ [`k${'x'.repeat(400)}`]: 1 }).length).toBeLessThanOrEqual(MAX_SUMMARY);
    });
  });

  it('prints other values as they are', () => {
    expect(summarizeOutput(42)).toBe('42');
    expect(summarizeOutput(true)).toBe('true');
    expect(summarizeOutput(null)).toBe('null');
    expect(summarizeOutput(undefined)).toBe('No output');
  });

  it('gives the same digest for the same value', () => {
    const value = { b: [1, 2], a: 'x' };
    expect(summarizeOutput(value)).toBe(summarizeOutput(JSON.parse(JSON.stringify(value))));
  });
});

describe(markdownFor.name, () => {
  it('keeps text only', () => {
    expect(markdownFor('# Title\n\nbody')).toBe('# Title\n\nbody');
    expect(markdownFor('done')).toBe('done');
  });

  it.each([[{ a: 1 }], [[1]], [42], [null], [undefined], [''], ['  ']])('gives null for %j', (raw) => {
    expect(markdownFor(raw)).toBeNull();
  });
});

describe(byteSize.name, () => {
  it('counts UTF-8 bytes of text and of JSON', () => {
    expect(byteSize('é')).toBe(2);
    expect(byteSize('😀')).toBe(4);
    expect(byteSize({ a: 1 })).toBe(7);
    expect(byteSize([1, 2])).toBe(5);
    expect(byteSize(null)).toBe(4);
    expect(byteSize(undefined)).toBe(4);
  });
});

import { byteSize, markdownFor, MAX_PREVIEW, outputPreview } from './preview';

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe(outputPreview.name, () => {
  describe('text', () => {
    it('keeps the first sentence, with an ellipsis when there is more', () => {
      expect(outputPreview('Prices fell. Details follow.')).toBe('Prices fell. …');
      expect(outputPreview('Is it up? Yes.')).toBe('Is it up? …');
    });

    it('keeps the first line of a longer text, without markdown markers', () => {
      expect(outputPreview('# Weekly report\n\nAll good')).toBe('Weekly report …');
      expect(outputPreview('- first point\n- second')).toBe('first point …');
      expect(outputPreview('# Title only')).toBe('Title only');
    });

    it('keeps a single sentence as it is, trimmed and on one line', () => {
      expect(outputPreview('  All   good  ')).toBe('All good');
      expect(outputPreview('3.5 percent up')).toBe('3.5 percent up');
    });

    it('says when the text is empty', () => {
      expect(outputPreview('')).toBe('Empty text');
      expect(outputPreview(' \n ')).toBe('Empty text');
    });

    it('stays within the limit, ending in an ellipsis', () => {
      const preview = outputPreview('x'.repeat(5000));
      expect(preview).toHaveLength(MAX_PREVIEW);
      expect(preview.endsWith('…')).toBe(true);
    });

    it('does not split a character made of two code units', () => {
      const preview = outputPreview('😀'.repeat(400));
      expect(Array.from(preview)).toHaveLength(MAX_PREVIEW);
      expect(preview).not.toMatch(/[\uD800-\uDBFF]…$/);
    });
  });

  describe('arrays', () => {
    it('gives the length and the keys of the items', () => {
      expect(
        outputPreview([
          { product: 'a', price: 1 },
          { product: 'b', price: 2, url: 'u' },
        ]),
      ).toBe('Array of 2 items; items have product, price, url');
    });

    it('gives the first values of other arrays', () => {
      expect(outputPreview(['a', 2, null, [1], { a: 1 }])).toBe('Array of 5 items: "a", 2, null, 1 item, object (1 key)');
      expect(outputPreview(Array.from({ length: 20 }, (_, i) => i))).toBe(
        'Array of 20 items: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 (+8 more)',
      );
    });

    it('says when it is empty and counts one item as one', () => {
      expect(outputPreview([])).toBe('Empty array');
      expect(outputPreview([{}])).toBe('Array of 1 item');
    });
  });

  describe('objects', () => {
    it('names the keys with the size of arrays and objects and the start of strings', () => {
      expect(outputPreview({ prices: [1, 2, 3, 4], summary: 'ok', meta: { a: 1, b: 2 }, one: [1], n: 3, flag: false, none: null })).toBe(
        'Object with prices: 4 items, summary: "ok", meta: object (2 keys), one: 1 item, n: 3, flag: false, none: null',
      );
    });

    it('clips long strings inside', () => {
      expect(outputPreview({ text: 'word '.repeat(20) })).toBe(`Object with text: "${'word '.repeat(8).trim()}…"`);
    });

    it('counts the keys it does not name', () => {
      expect(outputPreview(keys(15))).toMatch(/k11: 11 \(\+3 more\)$/);
    });

    it('says when it is empty', () => {
      expect(outputPreview({})).toBe('Empty object');
    });

    it('stays within the limit', () => {
      expect(outputPreview({ [`k${'x'.repeat(400)}`]: 1 }).length).toBeLessThanOrEqual(MAX_PREVIEW);
    });
  });

  it('prints other values as they are', () => {
    expect(outputPreview(42)).toBe('42');
    expect(outputPreview(true)).toBe('true');
    expect(outputPreview(null)).toBe('null');
    expect(outputPreview(undefined)).toBe('No output');
  });

  it('gives the same digest for the same value', () => {
    const value = { b: [1, 2], a: 'x' };
    expect(outputPreview(value)).toBe(outputPreview(JSON.parse(JSON.stringify(value))));
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

import { byteSize, markdownFor, summarizeOutput } from './summary';

describe(summarizeOutput.name, () => {
  it('keeps the first sentence of text', () => {
    expect(summarizeOutput('Prices fell. Details follow.')).toBe('Prices fell. …');
  });

  it('describes arrays and objects by shape', () => {
    expect(summarizeOutput([{ product: 'a', price: 1 }, { product: 'b', price: 2 }])).toBe('Array of 2 items; items have product, price');
    expect(summarizeOutput({ prices: [1, 2, 3, 4], summary: 'ok' })).toBe('Object with prices: 4 items, summary: "ok"');
  });

  it('stays short', () => {
    expect(summarizeOutput('x'.repeat(5000)).length).toBeLessThanOrEqual(280);
  });
});

describe(markdownFor.name, () => {
  it('keeps text only', () => {
    expect(markdownFor('# Title')).toBe('# Title');
    expect(markdownFor({ a: 1 })).toBeNull();
  });
});

describe(byteSize.name, () => {
  it('counts UTF-8 bytes', () => {
    expect(byteSize('é')).toBe(2);
    expect(byteSize({ a: 1 })).toBe(7);
  });
});

import { jsonColumn } from './json-column';

describe('jsonColumn', () => {
  it('writes JSON text and reads it back', () => {
    const value = { steps: ['a', 'b'], nested: { ok: true, n: 1.5, none: null }, text: 'é ✓ 😀' };
    const text = jsonColumn.to(value) as string;
    expect(typeof text).toBe('string');
    expect(jsonColumn.from(text)).toEqual(value);
  });

  it('leaves undefined alone so partial updates do not touch the column', () => {
    expect(jsonColumn.to(undefined)).toBeUndefined();
  });

  it('accepts a value the driver already parsed (a MySQL 8 JSON column)', () => {
    expect(jsonColumn.from(['a'])).toEqual(['a']);
    expect(jsonColumn.from(null)).toBeNull();
  });
});

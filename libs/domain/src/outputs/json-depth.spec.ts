import { errorOf } from '../errors.testing';
import { assertJsonDepth, assertStorableJson, jsonDepth, MAX_JSON_DEPTH } from './json-depth';

describe(jsonDepth.name, () => {
  it('measures nesting without recursion, stopping past the limit', () => {
    expect(jsonDepth('text')).toBe(0);
    expect(jsonDepth({ a: [1, { b: 2 }] })).toBe(3);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH + 1);
    expect(() => assertJsonDepth(deep, 'trigger_output')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'trigger_output' } }),
    );
  });
});

describe(assertStorableJson.name, () => {
  it('refuses data MariaDB would not store: too deep, or text with a lone surrogate in a key or a value', () => {
    const deep = Array.from({ length: MAX_JSON_DEPTH + 1 }).reduce<unknown>((inner) => [inner], 1);
    for (const value of [deep, { a: ['ok', 'x\ud800'] }, { ['\udc00']: 1 }, 'tail\ud83d']) {
      expect(errorOf(() => assertStorableJson(value, 'body'))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'body' } });
    }
  });

  it('accepts the deepest storable data, paired surrogates and a very wide array', () => {
    const deepest = Array.from({ length: MAX_JSON_DEPTH }).reduce<unknown>((inner) => [inner], 1);
    for (const value of [deepest, { emoji: '\ud83d\ude00', nul: '\u0000' }, Array.from({ length: 500_000 }, () => 'x')])
      expect(() => assertStorableJson(value, 'body')).not.toThrow();
  });
});

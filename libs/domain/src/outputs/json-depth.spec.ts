import { assertJsonDepth, jsonDepth, MAX_JSON_DEPTH } from './json-depth';

describe(jsonDepth.name, () => {
  it('measures nesting without recursion, stopping past the limit', () => {
    expect(jsonDepth('text')).toBe(0);
    expect(jsonDepth({ a: [1, { b: 2 }] })).toBe(3);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH + 1);
    expect(() => assertJsonDepth(deep, 'trigger_output')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'trigger_output' } }));
  });
});

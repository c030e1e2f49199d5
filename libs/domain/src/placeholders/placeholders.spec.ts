import {
  findMalformedPlaceholders,
  findPlaceholders,
  formatForPrompt,
  getPath,
  hasPlaceholders,
  parsePath,
  pickFromHistory,
  renderTemplate,
  resolvePlaceholder,
  type PlaceholderRef,
  type PlaceholderSources,
} from './placeholders';

const uuid = '0b8e3c1a-2f4d-4e5a-9b6c-7d8e9f0a1b2c';
const other = 'ffffffff-1111-4222-8333-444444444444';

const sources = (overrides: Partial<PlaceholderSources> = {}): PlaceholderSources => ({
  trigger: { user: { name: 'Ada' } },
  previous: { total: 3 },
  stepHistory: (stepUuid) => (stepUuid === uuid ? [{ n: 1 }, { n: 2 }, { n: 3, prices: [{ price: 10 }, { price: 12 }] }] : []),
  ...overrides,
});

describe(findPlaceholders.name, () => {
  it('parses trigger, step with path, history index and default, and $previous_output, in order of appearance', () => {
    const refs = findPlaceholders(
      `D $previous_output.total A <<trigger_output.user.name>> B <<step_output.${uuid}.prices[0].price>> C <<step_output.${uuid}[-2].x|none>>`,
    );
    expect(refs).toEqual([
      { raw: '$previous_output.total', kind: 'previous', path: ['total'] },
      { raw: '<<trigger_output.user.name>>', kind: 'trigger', path: ['user', 'name'] },
      { raw: `<<step_output.${uuid}.prices[0].price>>`, kind: 'step', step_uuid: uuid, path: ['prices', 0, 'price'] },
      { raw: `<<step_output.${uuid}[-2].x|none>>`, kind: 'step', step_uuid: uuid, index: -2, path: ['x'], default: 'none' },
    ]);
  });

  it('parses the bare forms', () => {
    expect(findPlaceholders(`<<trigger_output>> <<step_output.${uuid}>> $previous_output`)).toEqual([
      { raw: '<<trigger_output>>', kind: 'trigger', path: [] },
      { raw: `<<step_output.${uuid}>>`, kind: 'step', step_uuid: uuid, path: [] },
      { raw: '$previous_output', kind: 'previous', path: [] },
    ]);
  });

  it('lower-cases the step uuid, tolerates inner spaces and keeps defaults verbatim', () => {
    const [ref] = findPlaceholders(`<< step_output.${uuid.toUpperCase()}.a|n/a, sorry >>`);
    expect(ref).toMatchObject({ kind: 'step', step_uuid: uuid, path: ['a'], default: 'n/a, sorry' });
  });

  it('gives the trigger a default and quoted keys', () => {
    const [ref] = findPlaceholders(`<<trigger_output["first name"]['x\\'y'][-1]|anonymous>>`);
    expect(ref).toEqual({ raw: ref.raw, kind: 'trigger', path: ['first name', "x'y", -1], default: 'anonymous' });
  });

  it('ends $previous_output at the first character that is not part of a path', () => {
    expect(findPlaceholders('Summarise $previous_output. Then $previous_output.items[2], done')).toEqual([
      { raw: '$previous_output', kind: 'previous', path: [] },
      { raw: '$previous_output.items[2]', kind: 'previous', path: ['items', 2] },
    ]);
  });

  it('does not take longer names for $previous_output', () => {
    expect(findPlaceholders('$previous_outputs $previous_output_2')).toEqual([]);
  });

  it('finds nothing in plain text or malformed tokens', () => {
    expect(findPlaceholders('no placeholders <<nope>> here')).toEqual([]);
  });
});

describe(findMalformedPlaceholders.name, () => {
  it('reports tokens that are not a placeholder we understand', () => {
    const text = `<<step_output.>> <<trigger_output>> <<whatever>> <<step_output.not-a-uuid>> <<trigger_output.>> <<step_output.${uuid}.a..b>> <<>>`;
    expect(findMalformedPlaceholders(text)).toEqual([
      '<<step_output.>>',
      '<<whatever>>',
      '<<step_output.not-a-uuid>>',
      '<<trigger_output.>>',
      `<<step_output.${uuid}.a..b>>`,
      '<<>>',
    ]);
  });

  it('reports a placeholder never closed, and leaves other << alone', () => {
    expect(findMalformedPlaceholders('Hello <<trigger_output y')).toEqual(['<<trigger_output y']);
    expect(findMalformedPlaceholders('<<step_output.x then <<trigger_output>>')).toEqual(['<<step_output.x then ']);
    expect(findMalformedPlaceholders('a << b and x << y')).toEqual([]);
  });

  it('accepts the well-formed ones, $previous_output included', () => {
    expect(findMalformedPlaceholders(`<<trigger_output.a>> <<step_output.${uuid}[0].b|x>> $previous_output.c`)).toEqual([]);
  });
});

describe(hasPlaceholders.name, () => {
  it('tells text with placeholders from text without', () => {
    expect(hasPlaceholders('Use $previous_output')).toBe(true);
    expect(hasPlaceholders('Use <<unknown>>')).toBe(false);
  });
});

describe(renderTemplate.name, () => {
  it('replaces every placeholder with what the resolver gives and keeps malformed tokens', () => {
    const text = renderTemplate(`x=<<trigger_output.a>> y=<<step_output.${uuid}>> z=$previous_output <<other>>`, (ref) =>
      ref.kind === 'trigger' ? 'T' : ref.kind === 'step' ? 'S' : 'P',
    );
    expect(text).toBe('x=T y=S z=P <<other>>');
  });

  it('does not expand placeholders inside resolved values', () => {
    const text = renderTemplate(`a=<<step_output.${uuid}>> b=$previous_output`, (ref) =>
      ref.kind === 'step' ? `$previous_output and <<step_output.${other}>>` : 'P',
    );
    expect(text).toBe(`a=$previous_output and <<step_output.${other}>> b=P`);
  });

  it('passes each parsed reference to the resolver', () => {
    const seen: PlaceholderRef[] = [];
    renderTemplate(`<<step_output.${uuid}[-1].a|d>>`, (ref) => {
      seen.push(ref);
      return '';
    });
    expect(seen).toEqual([{ raw: `<<step_output.${uuid}[-1].a|d>>`, kind: 'step', step_uuid: uuid, index: -1, path: ['a'], default: 'd' }]);
  });

  it('keeps text with no placeholders as is', () => {
    expect(renderTemplate('plain $ and << text', () => 'X')).toBe('plain $ and << text');
  });
});

describe(parsePath.name, () => {
  it('reads names, indexes and quoted keys', () => {
    expect(parsePath('.a[0][-1]["b.c"].d-e')).toEqual(['a', 0, -1, 'b.c', 'd-e']);
    expect(parsePath('')).toEqual([]);
  });
});

describe(getPath.name, () => {
  it('walks objects and arrays', () => {
    expect(getPath({ a: [{ b: 2 }] }, ['a', 0, 'b'])).toBe(2);
    expect(getPath({ a: [1, 2, 3] }, ['a', -1])).toBe(3);
    expect(getPath({ a: [1, 2, 3] }, ['a', '1'])).toBe(2);
    expect(getPath('text', [])).toBe('text');
  });

  it('gives the length of arrays and strings', () => {
    expect(getPath({ a: [1, 2, 3] }, ['a', 'length'])).toBe(3);
    expect(getPath({ a: 'abcd' }, ['a', 'length'])).toBe(4);
    expect(getPath({ a: { length: 'own' } }, ['a', 'length'])).toBe('own');
  });

  it('gives undefined for missing segments, out-of-range indexes and non-containers', () => {
    expect(getPath({ a: null }, ['a', 'b'])).toBeUndefined();
    expect(getPath({ a: [1] }, ['a', 1])).toBeUndefined();
    expect(getPath({ a: [1] }, ['a', -2])).toBeUndefined();
    expect(getPath({ a: [1] }, ['a', 'x'])).toBeUndefined();
    expect(getPath('text', [0])).toBeUndefined();
    expect(getPath(undefined, ['a'])).toBeUndefined();
  });

  it('never reaches inherited properties', () => {
    expect(getPath({}, ['constructor'])).toBeUndefined();
    expect(getPath({}, ['__proto__'])).toBeUndefined();
    expect(getPath([], ['map'])).toBeUndefined();
  });
});

describe(pickFromHistory.name, () => {
  it('counts negative indexes from the latest', () => {
    expect(pickFromHistory([1, 2, 3], undefined)).toBe(3);
    expect(pickFromHistory([1, 2, 3], -1)).toBe(3);
    expect(pickFromHistory([1, 2, 3], -2)).toBe(2);
    expect(pickFromHistory([1, 2, 3], 0)).toBe(1);
  });

  it('gives undefined outside the history', () => {
    expect(pickFromHistory([1], -3)).toBeUndefined();
    expect(pickFromHistory([1], 1)).toBeUndefined();
    expect(pickFromHistory([], undefined)).toBeUndefined();
  });
});

describe(resolvePlaceholder.name, () => {
  const resolve = (text: string, overrides: Partial<PlaceholderSources> = {}) =>
    findPlaceholders(text).map((ref) => resolvePlaceholder(ref, sources(overrides)));

  it('reads the trigger data, the previous output and the latest output of a step', () => {
    expect(resolve(`<<trigger_output.user.name>> $previous_output.total <<step_output.${uuid}.prices[-1].price>>`)).toEqual(['Ada', 3, 12]);
  });

  it('picks from the history when an index is given', () => {
    expect(resolve(`<<step_output.${uuid}[0].n>> <<step_output.${uuid}[-2].n>>`)).toEqual([1, 2]);
  });

  it('falls back to the default, or undefined, when there is nothing', () => {
    expect(resolve(`<<step_output.${other}|none>> <<step_output.${uuid}[-9].n|old>> <<trigger_output.missing>>`)).toEqual([
      'none',
      'old',
      undefined,
    ]);
  });

  it('keeps falsy values found at the path', () => {
    expect(resolve('<<trigger_output.zero|d>> <<trigger_output.none|d>>', { trigger: { zero: 0, none: null } })).toEqual([0, null]);
  });
});

describe(formatForPrompt.name, () => {
  it('keeps strings, prints other values as pretty JSON and nothing as empty', () => {
    expect(formatForPrompt('hello')).toBe('hello');
    expect(formatForPrompt({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(formatForPrompt(42)).toBe('42');
    expect(formatForPrompt(null)).toBe('null');
    expect(formatForPrompt(undefined)).toBe('');
  });
});

describe('loop placeholders', () => {
  it('parses <<item>>, <<item.path>> with a default, and <<item_index>>', () => {
    expect(findPlaceholders('<<item>> <<item.name[0]|none>> <<item_index>>')).toEqual([
      { raw: '<<item>>', kind: 'item', path: [] },
      { raw: '<<item.name[0]|none>>', kind: 'item', path: ['name', 0], default: 'none' },
      { raw: '<<item_index>>', kind: 'item_index', path: [] },
    ]);
    expect(findMalformedPlaceholders('<<items>> <<item_indexes>>')).toEqual(['<<items>>', '<<item_indexes>>']);
  });

  it('resolves the element and its index from the loop source, and the default outside a loop', () => {
    const [item, field, index] = findPlaceholders('<<item>> <<item.name|none>> <<item_index>>');
    const inLoop = sources({ item: { value: { name: 'b' }, index: 1 } });
    expect([item, field, index].map((ref) => resolvePlaceholder(ref, inLoop))).toEqual([{ name: 'b' }, 'b', 1]);
    expect(resolvePlaceholder(field, sources())).toBe('none');
  });
});

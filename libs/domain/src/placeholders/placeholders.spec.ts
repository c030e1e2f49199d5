import { findMalformedPlaceholders, findPlaceholders, getPath, pickFromHistory, renderTemplate } from './placeholders';

const uuid = '0b8e3c1a-2f4d-4e5a-9b6c-7d8e9f0a1b2c';

describe(findPlaceholders.name, () => {
  it('parses trigger, step with path, history index and default, and $previous_output', () => {
    const refs = findPlaceholders(
      `A <<trigger_output.user.name>> B <<step_output.${uuid}.prices[0].price>> C <<step_output.${uuid}[-2].x|none>> D $previous_output.total`,
    );
    expect(refs).toEqual([
      { raw: '<<trigger_output.user.name>>', kind: 'trigger', path: ['user', 'name'] },
      { raw: `<<step_output.${uuid}.prices[0].price>>`, kind: 'step', step_uuid: uuid, path: ['prices', 0, 'price'] },
      { raw: `<<step_output.${uuid}[-2].x|none>>`, kind: 'step', step_uuid: uuid, index: -2, path: ['x'], default: 'none' },
      { raw: '$previous_output.total', kind: 'previous', path: ['total'] },
    ]);
  });

  it('reports malformed tokens separately', () => {
    expect(findMalformedPlaceholders('<<step_output.>> <<trigger_output>> <<whatever>>')).toEqual(['<<step_output.>>', '<<whatever>>']);
  });
});

describe(renderTemplate.name, () => {
  it('replaces every placeholder with what the resolver gives', () => {
    const text = renderTemplate(`x=<<trigger_output.a>> y=<<step_output.${uuid}>> z=$previous_output <<other>>`, (ref) =>
      ref.kind === 'trigger' ? 'T' : ref.kind === 'step' ? 'S' : 'P',
    );
    expect(text).toBe('x=T y=S z=P <<other>>');
  });
});

describe(getPath.name, () => {
  it('walks objects and arrays and stops at missing segments', () => {
    expect(getPath({ a: [{ b: 2 }] }, ['a', 0, 'b'])).toBe(2);
    expect(getPath({ a: null }, ['a', 'b'])).toBeUndefined();
  });
});

describe(pickFromHistory.name, () => {
  it('counts negative indexes from the latest', () => {
    expect(pickFromHistory([1, 2, 3], undefined)).toBe(3);
    expect(pickFromHistory([1, 2, 3], -2)).toBe(2);
    expect(pickFromHistory([1, 2, 3], 0)).toBe(1);
    expect(pickFromHistory([1], -3)).toBeUndefined();
  });
});

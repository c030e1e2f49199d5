import { evaluateCondition, evaluateStopConditions, extractJsonPath, isValidJsonPath } from './conditions';

describe(evaluateCondition.name, () => {
  it.each([
    [3, 'equals', '3', true],
    ['a', 'equals', 'b', false],
    [{ a: [1] }, 'equals', { a: [1] }, true],
    ['x', 'not_equals', 'y', true],
    ['hello world', 'contains', 'world', true],
    [['a', 'b'], 'contains', 'b', true],
    [5, 'contains', 5, false],
    [10, 'greater_than', 5, true],
    ['10', 'greater_than', 5, true],
    ['abc', 'greater_than', 5, false],
    [1, 'less_than', 2, true],
  ] as const)('%j %s %j -> %s', (actual, operator, target, expected) => {
    expect(evaluateCondition(actual, operator, target)).toBe(expected);
  });
});

describe(extractJsonPath.name, () => {
  const data = { alerts: [{ p: 1 }, { p: 2 }], status: 'ok' };
  it('unwraps one match, keeps several, gives undefined for none', () => {
    expect(extractJsonPath(data, '$.status')).toBe('ok');
    expect(extractJsonPath(data, '$.alerts[*].p')).toEqual([1, 2]);
    expect(extractJsonPath(data, '$.missing')).toBeUndefined();
    expect(extractJsonPath(data, '$.alerts.length')).toBe(2);
  });

  it('validates syntax', () => {
    expect(isValidJsonPath('$.a[0].b')).toBe(true);
    expect(isValidJsonPath('a.b')).toBe(false);
    expect(isValidJsonPath('$.a[')).toBe(false);
  });
});

describe(evaluateStopConditions.name, () => {
  it('stops on the first matching condition', () => {
    const outputs: Record<string, unknown> = { s1: { count: 0 }, s2: { status: 'done' } };
    const result = evaluateStopConditions(
      [
        { step_definition_uuid: 's1', extraction_json_path: '$.count', operator: 'greater_than', target_value: 0 },
        { step_definition_uuid: 's2', extraction_json_path: '$.status', operator: 'equals', target_value: 'done' },
      ],
      (id) => outputs[id],
    );
    expect(result).toMatchObject({ matched: true, actual: 'done', condition: { step_definition_uuid: 's2' } });
  });

  it('does not stop when no condition holds or the output is missing', () => {
    const result = evaluateStopConditions(
      [{ step_definition_uuid: 'gone', extraction_json_path: '$.x', operator: 'equals', target_value: 1 }],
      () => undefined,
    );
    expect(result.matched).toBe(false);
  });
});

import type { StopCondition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { evaluateCondition, evaluateStopConditions, extractJsonPath, isValidJsonPath, predicateMet } from './conditions';
import { ExpressionMeter } from './json-path-budget';
import { VALID_PATHS } from './json-path.testing';

const condition = (overrides: Partial<StopCondition> = {}): StopCondition => ({
  step_definition_uuid: 's1',
  extraction_json_path: '$.count',
  operator: 'equals',
  target_value: 1,
  ...overrides,
});

describe(evaluateCondition.name, () => {
  it.each([
    [3, 'equals', 3, true],
    [3, 'equals', '3', true],
    ['3', 'equals', 3, true],
    [' 2.50 ', 'equals', 2.5, true],
    ['1e3', 'equals', 1000, true],
    ['0x10', 'equals', 16, false],
    ['', 'equals', 0, false],
    ['3', 'equals', '3.0', false],
    ['a', 'equals', 'b', false],
    [null, 'equals', null, true],
    [undefined, 'equals', null, false],
    [true, 'equals', 'true', false],
    [{ a: [1, { b: 2 }] }, 'equals', { a: [1, { b: 2 }] }, true],
    [{ a: [1] }, 'equals', { a: ['1'] }, true],
    [{ a: 1 }, 'equals', { a: 1, b: 2 }, false],
    [{ a: undefined }, 'equals', { b: undefined }, false],
    [[1, 2], 'equals', { 0: 1, 1: 2 }, false],
    [[1, 2], 'equals', [2, 1], false],
    ['x', 'not_equals', 'y', true],
    [3, 'not_equals', '3', false],
    ['hello world', 'contains', 'world', true],
    ['hello world', 'contains', 'planet', false],
    ['order 42', 'contains', 42, true],
    ['abc', 'contains', { a: 1 }, false],
    [['a', 'b'], 'contains', 'b', true],
    [[1, 2], 'contains', '2', true],
    [[{ id: 1 }], 'contains', { id: 1 }, true],
    [['a'], 'contains', 'z', false],
    [5, 'contains', 5, false],
    [{ a: 1 }, 'contains', 'a', false],
    [10, 'greater_than', 5, true],
    ['10', 'greater_than', '9', true],
    [5, 'greater_than', 5, false],
    ['abc', 'greater_than', 5, false],
    [null, 'greater_than', -1, false],
    [true, 'greater_than', 0, false],
    [1, 'less_than', 2, true],
    [2, 'less_than', 1, false],
    [1, 'less_than', 'two', false],
    [[1], 'less_than', 2, false],
  ] as const)('%j %s %j -> %s', (actual, operator, target, expected) => {
    expect(evaluateCondition(actual, operator, target)).toBe(expected);
  });

  it('is false for an operator it does not know', () => {
    expect(evaluateCondition(1, 'like' as never, 1)).toBe(false);
  });
});

describe(extractJsonPath.name, () => {
  const data = { alerts: [{ p: 1 }, { p: 2 }], status: 'ok', nested: { list: [7] } };

  it('unwraps one match, keeps several, gives undefined for none', () => {
    expect(extractJsonPath(data, '$.status')).toBe('ok');
    expect(extractJsonPath(data, '$.alerts[*].p')).toEqual([1, 2]);
    expect(extractJsonPath(data, '$.missing')).toBeUndefined();
  });

  it('keeps a single array match as the array', () => {
    expect(extractJsonPath(data, '$.nested.list')).toEqual([7]);
  });

  it('reads lengths, filters and the root', () => {
    expect(extractJsonPath(data, '$.alerts.length')).toBe(2);
    expect(extractJsonPath(data, '$.alerts[?(@.p > 1)].p')).toBe(2);
    expect(extractJsonPath(data, '$')).toEqual(data);
  });

  it('applies to text and null outputs', () => {
    expect(extractJsonPath('plain text', '$')).toBe('plain text');
    expect(extractJsonPath(null, '$')).toBeNull();
    expect(extractJsonPath(null, '$.a')).toBeUndefined();
    expect(extractJsonPath(undefined, '$')).toBeUndefined();
  });

  it('skips items a filter cannot read instead of failing', () => {
    const items = { items: [{ x: { y: 1 } }, {}, { x: { y: 2 } }] };
    expect(extractJsonPath(items, '$.items[?(@.x.y > 1)].x.y')).toBe(2);
  });

  it('never reaches inherited properties', () => {
    expect(extractJsonPath({}, '$.constructor')).toBeUndefined();
  });

  it('refuses a path it does not read (one saved before paths were checked as now) with INVALID_JSON_PATH', () => {
    expect(errorOf(() => extractJsonPath(data, '$.alerts[?(@.p.toString())]'))).toMatchObject({
      code: ErrorCode.InvalidJsonPath,
      details: { path: '$.alerts[?(@.p.toString())]' },
    });
  });
});

describe(isValidJsonPath.name, () => {
  it.each(VALID_PATHS)('accepts %s', (path) => {
    expect(isValidJsonPath(path)).toBe(true);
  });

  it.each([
    ['without the root', 'a.b'],
    ['with a name glued to the root', '$a'],
    ['empty', ''],
    ['with an open bracket', '$.a['],
    ['with an unclosed quote', '$["a]'],
    ['with a stray closing bracket', '$.a]'],
    ['ending in a dot', '$.a.'],
    ['with a broken filter', '$.a[?(@.x >)]'],
    ['with a broken script', '$.a[(@.length-)]'],
    ['calling an unknown function', '$.a[?(evil(1))]'],
  ])('refuses a path %s', (_case, path) => {
    expect(isValidJsonPath(path)).toBe(false);
  });

  it('refuses what is not a string', () => {
    expect(isValidJsonPath(42)).toBe(false);
    expect(isValidJsonPath(null)).toBe(false);
  });
});

describe(evaluateStopConditions.name, () => {
  const outputs: Record<string, unknown> = { s1: { count: 0 }, s2: { status: 'done' } };
  const outputOf = (id: string) => outputs[id];

  it('stops on the first matching condition, giving it and the value found', () => {
    const result = evaluateStopConditions(
      [
        condition({ operator: 'greater_than', target_value: 0 }),
        condition({ step_definition_uuid: 's2', extraction_json_path: '$.status', target_value: 'done' }),
        condition({ target_value: 0 }),
      ],
      outputOf,
    );
    expect(result).toEqual({ matched: true, actual: 'done', condition: expect.objectContaining({ step_definition_uuid: 's2' }) });
  });

  it('does not stop when no condition holds', () => {
    expect(evaluateStopConditions([condition({ target_value: 5 })], outputOf)).toEqual({ matched: false });
  });

  it('does not stop on an equals condition when the output is missing', () => {
    expect(evaluateStopConditions([condition({ step_definition_uuid: 'gone' })], outputOf).matched).toBe(false);
  });

  it('stops on not_equals when the field is missing', () => {
    const result = evaluateStopConditions(
      [condition({ extraction_json_path: '$.nope', operator: 'not_equals', target_value: 1 })],
      outputOf,
    );
    expect(result).toMatchObject({ matched: true, actual: undefined });
  });

  it('does not stop without conditions', () => {
    expect(evaluateStopConditions([], outputOf).matched).toBe(false);
  });

  it('names the condition whose path went past the budget', () => {
    const wide = { items: Array.from({ length: 500 }, (_, i) => ({ id: i })) };
    const conditions = [
      condition({ extraction_json_path: '$.items[*].id', operator: 'contains', target_value: -1 }),
      condition({ extraction_json_path: '$..id', operator: 'contains', target_value: -1 }),
    ];
    const error = errorOf(() =>
      evaluateStopConditions(conditions, () => wide, new ExpressionMeter({ maxNodesVisited: 2_500, maxResults: 1_000 })),
    );
    expect(error).toMatchObject({
      code: ErrorCode.ExpressionBudgetExceeded,
      details: { field: 'stop_conditions[1].extraction_json_path', path: '$..id' },
    });
  });
});

describe(predicateMet.name, () => {
  it('compares the value at the path with equals', () => {
    expect(predicateMet({ done: 'true' }, '$.done', 'true')).toBe(true);
    expect(predicateMet({ done: 1 }, '$.done', '1')).toBe(true);
    expect(predicateMet({}, '$.done', true)).toBe(false);
  });

  it('names loop.predicate_path when the budget is spent', () => {
    const error = errorOf(() =>
      predicateMet(
        Array.from({ length: 50 }, () => ['x']),
        '$[*][*]',
        'y',
        new ExpressionMeter({ maxNodesVisited: 60, maxResults: 100 }),
      ),
    );
    expect(error).toMatchObject({ code: ErrorCode.ExpressionBudgetExceeded, details: { field: 'loop.predicate_path' } });
  });
});

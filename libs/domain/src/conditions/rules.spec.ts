import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { ExpressionMeter } from './json-path-budget';
import { evaluateRules, ruleIssues, validateRules } from './rules';

const event = { type: 'order.created', order: { total: 120, tags: ['vip'], email: 'a@example.com', coupon: null } };

const nest = (depth: number): Record<string, unknown> =>
  depth === 0 ? { path: '$.type', operator: 'exists' } : { all: [nest(depth - 1)] };

describe(evaluateRules.name, () => {
  it.each([
    [{}, true],
    [undefined, true],
    [null, true],
    [{ path: '$.type', operator: 'equals', value: 'order.created' }, true],
    [{ path: '$.type', operator: 'not_equals', value: 'order.created' }, false],
    [{ path: '$.order.total', operator: 'greater_than', value: 100 }, true],
    [{ path: '$.order.total', operator: 'less_than', value: '100' }, false],
    [{ path: '$.order.tags', operator: 'contains', value: 'vip' }, true],
    [{ path: '$.order.email', operator: 'matches', value: '@example\\.com$' }, true],
    [{ path: '$.order.total', operator: 'matches', value: '120' }, false],
    [{ path: '$.order.missing', operator: 'exists' }, false],
    [{ path: '$.order.missing', operator: 'exists', value: false }, true],
    [{ path: '$.order.coupon', operator: 'exists' }, true],
    [{ path: '$.type', operator: 'exists', value: true }, true],
    [
      {
        all: [
          { path: '$.type', operator: 'equals', value: 'order.created' },
          { path: '$.order.total', operator: 'less_than', value: 100 },
        ],
      },
      false,
    ],
    [
      {
        any: [
          { path: '$.type', operator: 'equals', value: 'refund' },
          { all: [{ path: '$.order.total', operator: 'greater_than', value: 100 }] },
        ],
      },
      true,
    ],
    [{ any: [{ path: '$.type', operator: 'equals', value: 'refund' }] }, false],
  ])('%j -> %s', (rules, expected) => {
    expect(evaluateRules(rules, event)).toBe(expected);
  });

  it.each([
    ['an array', []],
    ['a string', 'all'],
    ['an unknown operator', { path: '$.type', operator: 'like', value: 'x' }],
    ['a broken regular expression', { path: '$.type', operator: 'matches', value: '(' }],
    ['a path that is not a string', { path: 1, operator: 'exists' }],
  ])('matches nothing with %s', (_case, rules) => {
    expect(evaluateRules(rules, event)).toBe(false);
  });

  it('matches nothing with a path saved before paths were checked as now, which no longer parses', () => {
    expect(evaluateRules({ path: '$.order[?(@.email.includes("a"))]', operator: 'exists' }, event)).toBe(false);
  });

  it('stops a saved path that fans out over deep data with EXPRESSION_BUDGET_EXCEEDED naming the rule', () => {
    const deep = Array.from({ length: 31 }).reduce<unknown>((inner) => ({ a: inner, b: [1, 2] }), 1);
    const rules = {
      any: [
        { path: '$.type', operator: 'exists' },
        { path: '$..a..a..a..a..a', operator: 'exists' },
      ],
    };
    const error = errorOf(() => evaluateRules(rules, deep, new ExpressionMeter({ maxNodesVisited: 100_000, maxResults: 10_000 })));
    expect(error).toMatchObject({
      code: ErrorCode.ExpressionBudgetExceeded,
      details: { field: 'filter_rules.any[1].path', path: '$..a..a..a..a..a' },
    });
  });

  it('shares one budget across the rules of a tree', () => {
    const wide = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i })) };
    const rule = { path: '$.items[*].id', operator: 'contains', value: -1 };
    const budget = { maxNodesVisited: 10_000, maxResults: 10_000 };
    expect(evaluateRules({ all: [rule, rule] }, wide, new ExpressionMeter(budget))).toBe(false);
    expect(errorOf(() => evaluateRules({ any: Array.from({ length: 10 }, () => rule) }, wide, new ExpressionMeter(budget)))).toMatchObject({
      code: ErrorCode.ExpressionBudgetExceeded,
    });
  });

  it('reads events that are not objects', () => {
    expect(evaluateRules({ path: '$', operator: 'equals', value: 'ping' }, 'ping')).toBe(true);
    expect(evaluateRules({ path: '$.a', operator: 'exists' }, null)).toBe(false);
  });
});

describe(ruleIssues.name, () => {
  it('lists every problem of a rule', () => {
    expect(
      ruleIssues({
        all: [
          { path: 'x', operator: 'like', colour: 'red' },
          { path: '$.a', operator: 'equals' },
        ],
      }),
    ).toEqual([
      { code: ErrorCode.ValidationFailed, field: 'filter_rules.all[0].path', message: expect.stringContaining('JSONPath') },
      { code: ErrorCode.ValidationFailed, field: 'filter_rules.all[0].operator', message: expect.stringContaining('one of') },
      { code: ErrorCode.ValidationFailed, field: 'filter_rules.all[0].colour', message: expect.stringContaining('not a known field') },
      { code: ErrorCode.ValidationFailed, field: 'filter_rules.all[1].value', message: expect.stringContaining('required') },
    ]);
  });

  it('uses the field it is given', () => {
    expect(ruleIssues('x', 'trigger.filter_rules')[0].field).toBe('trigger.filter_rules');
  });
});

describe(validateRules.name, () => {
  it.each([
    [[], 'filter_rules'],
    [{ all: [] }, 'filter_rules.all'],
    [{ any: 'x' }, 'filter_rules.any'],
    [{ all: [{ path: 'type', operator: 'equals', value: 1 }] }, 'filter_rules.all[0].path'],
    [{ all: [{}] }, 'filter_rules.all[0].path'],
    [{ all: ['x'] }, 'filter_rules.all[0]'],
    [{ any: [{ path: '$.a', operator: 'like', value: 1 }] }, 'filter_rules.any[0].operator'],
    [{ path: '$.a', operator: 'matches', value: '(' }, 'filter_rules.value'],
    [{ path: '$.a', operator: 'matches', value: 5 }, 'filter_rules.value'],
    [{ path: '$.a', operator: 'exists', value: 'yes' }, 'filter_rules.value'],
    [{ path: '$.a', operator: 'equals' }, 'filter_rules.value'],
    [{ path: '$.a', operator: 'equals', value: 1, extra: true }, 'filter_rules.extra'],
    [{ all: [{ path: '$.a', operator: 'exists' }], any: [] }, 'filter_rules'],
    [
      {
        any: [
          { path: '$.a', operator: 'exists' },
          { path: '$..a..a', operator: 'exists' },
        ],
      },
      'filter_rules.any[1].path',
    ],
    [{ path: '$.a[*][*][*][*]', operator: 'exists' }, 'filter_rules.path'],
    [nest(5), 'filter_rules.all[0].all[0].all[0].all[0].all[0]'],
  ])('refuses %j naming %s', (rules, field) => {
    const error = errorOf(() => validateRules(rules));
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field } });
  });

  it('lists every problem in details.errors', () => {
    const error = errorOf(() =>
      validateRules(
        {
          any: [
            { path: 'x', operator: 'exists' },
            { path: '$.a', operator: 'nope', value: 1 },
          ],
        },
        'trigger.filter_rules',
      ),
    );
    expect(error.details.field).toBe('trigger.filter_rules.any[0].path');
    expect((error.details.errors as { field: string }[]).map((e) => e.field)).toEqual([
      'trigger.filter_rules.any[0].path',
      'trigger.filter_rules.any[1].operator',
    ]);
  });

  it('accepts empty rules, every operator and groups nested five deep', () => {
    expect(() => validateRules({})).not.toThrow();
    expect(() => validateRules(nest(4))).not.toThrow();
    expect(() =>
      validateRules({
        any: [
          { path: '$.a', operator: 'exists', value: false },
          { path: '$.a', operator: 'matches', value: '^x' },
          { path: '$.a', operator: 'equals', value: null },
          { path: '$.a', operator: 'contains', value: 'x' },
          {
            all: [
              { path: '$.a', operator: 'greater_than', value: 1 },
              { path: '$.a', operator: 'less_than', value: 2 },
              { path: '$.a', operator: 'not_equals', value: 3 },
            ],
          },
        ],
      }),
    ).not.toThrow();
  });
});

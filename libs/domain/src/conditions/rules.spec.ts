import { DomainError } from '../errors';
import { evaluateRules, validateRules } from './rules';

const event = { type: 'order.created', order: { total: 120, tags: ['vip'], email: 'a@example.com' } };

describe(evaluateRules.name, () => {
  it.each([
    [{}, true],
    [{ path: '$.type', operator: 'equals', value: 'order.created' }, true],
    [{ path: '$.order.total', operator: 'greater_than', value: 100 }, true],
    [{ path: '$.order.tags', operator: 'contains', value: 'vip' }, true],
    [{ path: '$.order.email', operator: 'matches', value: '@example\\.com$' }, true],
    [{ path: '$.order.coupon', operator: 'exists' }, false],
    [{ path: '$.order.coupon', operator: 'exists', value: false }, true],
    [{ all: [{ path: '$.type', operator: 'equals', value: 'order.created' }, { path: '$.order.total', operator: 'less_than', value: 100 }] }, false],
    [{ any: [{ path: '$.type', operator: 'equals', value: 'refund' }, { all: [{ path: '$.order.total', operator: 'greater_than', value: 100 }] }] }, true],
  ])('%j -> %s', (rules, expected) => {
    expect(evaluateRules(rules, event)).toBe(expected);
  });
});

describe(validateRules.name, () => {
  it.each([
    [{ all: [] }, 'filter_rules.all'],
    [{ all: [{ path: 'type', operator: 'equals', value: 1 }] }, 'filter_rules.all[0].path'],
    [{ any: [{ path: '$.a', operator: 'like', value: 1 }] }, 'filter_rules.any[0].operator'],
    [{ path: '$.a', operator: 'matches', value: '(' }, 'filter_rules.value'],
    [{ path: '$.a', operator: 'equals', value: 1, extra: true }, 'filter_rules.extra'],
    [{ all: [{ path: '$.a', operator: 'exists' }], any: [] }, 'filter_rules'],
  ])('refuses %j naming %s', (rules, field) => {
    let error: unknown;
    try {
      validateRules(rules);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).details.field).toBe(field);
  });

  it('accepts empty rules and nested groups', () => {
    expect(() => validateRules({})).not.toThrow();
    expect(() => validateRules({ any: [{ all: [{ path: '$.a', operator: 'exists' }] }] })).not.toThrow();
  });
});

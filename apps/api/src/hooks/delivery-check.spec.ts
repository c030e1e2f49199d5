import { DEFAULT_EXPRESSION_BUDGET } from '@app/domain';
import { ThreadPool } from '../common/thread-pool';
import { workerScript } from '../common/worker-script';
import { checkDelivery, type DeliveryVerdict } from './delivery-check';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const check = (raw: Uint8Array | null, rules: unknown = null) => checkDelivery({ raw, rules, budget: DEFAULT_EXPRESSION_BUDGET });

describe(checkDelivery.name, () => {
  it('reads the body as express.json does: empty is {}, not JSON is null, only an object or array at the top', () => {
    expect(check(bytes(''), { path: '$', operator: 'exists' })).toEqual({ ok: true, matched: true });
    expect(check(null, { path: '$.a', operator: 'exists' })).toEqual({ ok: true, matched: false });
    expect(check(bytes(' "text"'))).toEqual({ ok: false, parse_error: 'Unexpected token " in JSON at position 0' });
    expect(check(bytes('{"a": '))).toMatchObject({ ok: false, parse_error: expect.any(String) });
  });

  it('matches the filter rules, and refuses what MySQL would and what runs past the rules budget with the field', () => {
    expect(check(bytes('{"kind": "push"}'), { path: '$.kind', operator: 'equals', value: 'push' })).toEqual({ ok: true, matched: true });
    expect(check(bytes(`${'['.repeat(40)}${']'.repeat(40)}`))).toMatchObject({ ok: false, refusal: { details: { field: 'body' } } });
    expect(check(bytes('{"a": "\\ud800"}'))).toMatchObject({ ok: false, refusal: { details: { field: 'body' } } });
    const wide = JSON.stringify({ a: Array.from({ length: 30 }, () => ({ a: Array.from({ length: 30 }, () => ({ a: [1, 2, 3] })) })) });
    const tight = checkDelivery({
      raw: bytes(wide),
      rules: { path: '$..a..a..a', operator: 'exists' },
      budget: { maxNodesVisited: 500, maxResults: 50 },
    });
    expect(tight).toMatchObject({ ok: false, refusal: { code: 'EXPRESSION_BUDGET_EXCEEDED' } });
  });

  it('runs in the delivery worker thread, loaded from the TypeScript sources here', async () => {
    const { script, options } = workerScript(__dirname, 'delivery-check.worker');
    const pool = new ThreadPool(script, { size: 1, maxQueued: 1, timeLimitMs: 30_000 }, options);
    try {
      const verdict = await pool.run<DeliveryVerdict>({
        raw: bytes('{"a": 1}'),
        rules: { path: '$.a', operator: 'exists' },
        budget: DEFAULT_EXPRESSION_BUDGET,
      });
      expect(verdict).toEqual({ ok: true, matched: true });
    } finally {
      await pool.close();
    }
  });
});

import { byteSize, DEFAULT_EXPRESSION_BUDGET, outputPreview } from '@app/domain';
import { ThreadPool } from '../common/thread-pool';
import { workerScript } from '../common/worker-script';
import { checkDelivery, type DeliveryVerdict } from './delivery-check';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const check = (raw: Uint8Array | null, rules: unknown = null) => checkDelivery({ raw, rules, budget: DEFAULT_EXPRESSION_BUDGET });

describe(checkDelivery.name, () => {
  it('reads the body as express.json does: empty is {}, not JSON is null, only an object or array at the top', () => {
    expect(check(bytes(''), { path: '$', operator: 'exists' })).toMatchObject({ ok: true, matched: true, trigger: { json: '{}' } });
    expect(check(null, { path: '$.a', operator: 'exists' })).toEqual({ ok: true, matched: false });
    expect(check(bytes(' "text"'))).toEqual({ ok: false, parse_error: 'Unexpected token " in JSON at position 0' });
    expect(check(bytes('{"a": '))).toMatchObject({ ok: false, parse_error: expect.any(String) });
  });

  it('matches the filter rules, and refuses what MySQL would and what runs past the rules budget with the field', () => {
    expect(check(bytes('{"kind": "push"}'), { path: '$.kind', operator: 'equals', value: 'push' })).toMatchObject({
      ok: true,
      matched: true,
    });
    expect(check(bytes('{"kind": "push"}'), { path: '$.kind', operator: 'equals', value: 'pull' })).toEqual({ ok: true, matched: false });
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

  it("answers a matched delivery's trigger data serialized and described as a run's row stores it, so the loop walks nothing", () => {
    const text = ' {"kind": "push",\n "title": "caf\\u00e9 ☕", "n": 1.0, "items": [1, 2]}';
    const value = JSON.parse(text) as unknown;
    expect(check(bytes(text))).toEqual({
      ok: true,
      matched: true,
      trigger: {
        json: JSON.stringify(value),
        summary: outputPreview(value),
        markdown_representation: null,
        size_bytes: byteSize(value),
      },
    });
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
      expect(verdict).toEqual({ ok: true, matched: true, trigger: expect.objectContaining({ json: '{"a":1}', size_bytes: 7 }) });
    } finally {
      await pool.close();
    }
  });
});

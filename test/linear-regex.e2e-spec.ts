// Users' regular expressions cannot stall the API: a webhook filter rule or a human_input schema with the
// catastrophic pattern answers at once whatever the input, while other requests go on; what RE2 cannot
// run is refused when saved.
import { randomUUID } from 'node:crypto';
import { llmStep } from './support/factories';
import { useStack, type Stack } from './support/stack';

const CATASTROPHIC = '^(a+)+$';
/** Measured figures are printed; the bound is loose for a loaded 2-core machine (RegExp takes minutes here). */
const QUICK_MS = 500;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: Math.round(performance.now() - started) };
}

describe('User regular expressions', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  it('filters webhook deliveries with the catastrophic pattern in linear time, without delaying other requests', async () => {
    const workflow = await stack.createWorkflow([llmStep()], {
      trigger: { type: 'webhook', filter_rules: { path: '$.name', operator: 'matches', value: CATASTROPHIC } },
    });
    const { secret } = (await stack.user.post(`/triggers/${workflow.trigger!.uuid}/rotate-secret`)).body;
    const deliver = (name: string) =>
      stack.api.anonymous().call('POST', `/hooks/${workflow.trigger!.uuid}`, { name }, { 'x-stepwise-secret': secret });

    for (const name of ['a'.repeat(33) + '!', 'a'.repeat(100_000) + '!']) {
      const [delivery, health] = await Promise.all([timed(() => deliver(name)), timed(() => stack.api.anonymous().get('/health/live'))]);
      console.log(
        `matches ${CATASTROPHIC} on ${name.length} characters: ${delivery.ms} ms, a concurrent GET /health/live: ${health.ms} ms`,
      );
      expect(delivery.result).toMatchObject({ status: 200, body: { matched: false } });
      expect(health.result.status).toBe(200);
      expect([delivery.ms, health.ms].every((ms) => ms < QUICK_MS)).toBe(true);
    }
  });

  it('checks a human answer against a schema pattern in linear time', async () => {
    const approval = {
      uuid: randomUUID(),
      type: 'human_input',
      name: 'code',
      prompt: 'The code?',
      input_schema: { type: 'string', pattern: CATASTROPHIC },
    };
    const run = await stack.startRun((await stack.createWorkflow([approval])).uuid);
    await stack.waitForRun(run.uuid, (body) => body.status === 'awaiting_input');
    const answer = await timed(() => stack.user.post(`/runs/${run.uuid}/steps/${approval.uuid}/input`, { input: 'a'.repeat(34) + '!' }));
    console.log(`input_schema pattern on 35 characters: ${answer.ms} ms`);
    expect(answer.result).toMatchObject({ status: 422, body: { code: 'INVALID_HUMAN_INPUT' } });
    expect(answer.ms).toBeLessThan(QUICK_MS);
    await stack.user.post(`/runs/${run.uuid}/cancel`);
  });

  it('refuses to save a pattern RE2 cannot run (backreferences, lookarounds), naming the field', async () => {
    const rule = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep()],
      trigger: { type: 'webhook', filter_rules: { path: '$.a', operator: 'matches', value: '(x)\\1' } },
    });
    expect(rule).toMatchObject({ status: 422, body: { details: { field: 'trigger.filter_rules.value' } } });
    const schema = await stack.user.post('/workflows', {
      name: `wf-${randomUUID().slice(0, 6)}`,
      steps: [llmStep({ output_schema: { type: 'object', properties: { id: { type: 'string', pattern: '^(?!admin)' } } } })],
    });
    expect(schema).toMatchObject({
      status: 422,
      body: { message: expect.stringContaining('RE2'), details: { field: 'steps[0].output_schema' } },
    });
  });
});

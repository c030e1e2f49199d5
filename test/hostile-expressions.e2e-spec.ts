// One tenant's expressions cannot take the API down (issue #26): a filter rule that fans out is refused when
// saved; the largest path saving accepts, over the largest body a delivery may carry, ends with a coded
// answer once its work budget is spent while liveness goes on answering; so does a rule saved before
// paths were checked (several recursive descents over deep data: 22 s of a blocked event loop before); and
// a body MySQL would refuse to store (too deep, a lone surrogate) is a 422 with nothing written, not a 500.
// Durations are printed, not asserted: the budget is a count of values visited, and each test's deadline
// (15 s) is far below what the unbounded evaluation took.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { llmStep } from './support/factories';
import type { Reply } from './support/api';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

/** The largest path saving accepts: one recursive descent and three selectors that pick several values. */
const LARGEST_PATH = '$..a[*][*][?(@.v > 0)]';
const DEADLINE_MS = 15_000;

/** `{a: {a: ... {v: 1}}}`, `depth` objects deep. */
const chain = (depth: number): unknown => Array.from({ length: depth - 1 }).reduce<unknown>((inner) => ({ a: inner }), { v: 1 });

/** About 0.8 MiB at 31 levels, the deepest a body may be: a chain beside 400,000 numbers. */
const widestDeepBody = () => ({ deep: chain(30), a: [Array.from({ length: 400_000 }, () => 0)] });

describe('Hostile expressions', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const rowsOf = async (table: string, column: string, value: string) =>
    Number((await stack.api.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [value]))[0].n);

  async function hook(filter_rules: unknown) {
    const workflow = await stack.createWorkflow([llmStep()], { trigger: { type: 'webhook', filter_rules } });
    const { secret } = (await stack.user.post(`/triggers/${workflow.trigger!.uuid}/rotate-secret`)).body;
    return { workflow, trigger: workflow.trigger!.uuid, secret: secret as string };
  }

  /** The delivery, timed, with GET /health/live asked over and over until it answers. */
  async function deliverWhileProbing(trigger: string, secret: string, body: unknown) {
    const started = performance.now();
    let answered = false;
    const delivery = stack.api
      .anonymous()
      .call('POST', `/hooks/${trigger}`, typeof body === 'string' ? body : JSON.stringify(body), { 'x-stepwise-secret': secret })
      .finally(() => (answered = true));
    const probes: Reply[] = [];
    do probes.push(await stack.api.anonymous().get('/health/live'));
    while (!answered);
    return { delivery: await delivery, ms: Math.round(performance.now() - started), probes };
  }

  it('refuses at save a filter rule, stop condition or predicate that fans out, naming the field', async () => {
    const name = () => `wf-${randomUUID().slice(0, 6)}`;
    const fanOut = {
      any: [
        { path: '$.type', operator: 'exists' },
        { path: '$..a..a..a..a..a', operator: 'exists' },
      ],
    };
    const created = await stack.user.post('/workflows', {
      name: name(),
      steps: [llmStep()],
      trigger: { type: 'webhook', filter_rules: fanOut },
    });
    expect(created).toMatchObject({
      status: 422,
      body: {
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('recursive descents'),
        details: { field: 'trigger.filter_rules.any[1].path' },
      },
    });

    const workflow = await stack.createWorkflow([llmStep()]);
    const put = await stack.user.put(`/workflows/${workflow.uuid}/trigger`, {
      type: 'webhook',
      filter_rules: { path: '$.items[*][*][*][*]', operator: 'exists' },
    });
    expect(put).toMatchObject({ status: 422, body: { code: 'VALIDATION_FAILED', details: { field: 'filter_rules.path' } } });

    const step = llmStep();
    const checker = {
      uuid: randomUUID(),
      type: 'stop_checker',
      name: 'stop',
      stop_conditions: [{ step_definition_uuid: step.uuid, extraction_json_path: '$..a..b', operator: 'equals', target_value: 1 }],
    };
    const stop = await stack.user.post('/workflows', { name: name(), steps: [step, checker] });
    expect(stop).toMatchObject({
      status: 422,
      body: { code: 'INVALID_JSON_PATH', details: { field: 'steps[1].stop_conditions[0].extraction_json_path' } },
    });
    const loop = await stack.user.post('/workflows', {
      name: name(),
      steps: [llmStep({ loop: { type: 'repeat_until', predicate_path: '$..a[?(@.v)]..b', predicate_value: true } })],
    });
    expect(loop).toMatchObject({ status: 422, body: { code: 'INVALID_JSON_PATH', details: { field: 'steps[0].loop.predicate_path' } } });

    expect(
      (
        await stack.user.post('/workflows', {
          name: name(),
          steps: [llmStep()],
          trigger: { type: 'webhook', filter_rules: { path: LARGEST_PATH, operator: 'exists' } },
        })
      ).status,
    ).toBe(201);
  });

  it(
    'ends the largest allowed path over the widest, deepest body with EXPRESSION_BUDGET_EXCEEDED while liveness answers, writing nothing',
    async () => {
      const { workflow, trigger, secret } = await hook({ path: LARGEST_PATH, operator: 'exists' });
      const body = JSON.stringify(widestDeepBody());
      const { delivery, ms, probes } = await deliverWhileProbing(trigger, secret, body);
      console.log(
        `${LARGEST_PATH} over ${body.length} bytes, 31 levels: ${delivery.status} ${delivery.body.code} in ${ms} ms; ${probes.length} GET /health/live meanwhile`,
      );
      expect(delivery).toMatchObject({
        status: 422,
        body: { code: 'EXPRESSION_BUDGET_EXCEEDED', details: { field: 'filter_rules.path', path: LARGEST_PATH } },
      });
      expect(probes.map((probe) => probe.status)).toEqual(probes.map(() => 200));
      expect([
        await rowsOf('workflow_runs', 'workflow_uuid', workflow.uuid),
        await rowsOf('trigger_events', 'trigger_uuid', trigger),
      ]).toEqual([0, 0]);
    },
    DEADLINE_MS,
  );

  it(
    'filters a deep body under the largest allowed path when the data is small enough, and records the event',
    async () => {
      const { trigger, secret } = await hook({ path: LARGEST_PATH, operator: 'exists', value: false });
      const body = { deep: chain(30), a: Array.from({ length: 2_000 }, (_, i) => [[{ v: i % 2 }]]) };
      const { delivery, ms } = await deliverWhileProbing(trigger, secret, body);
      console.log(
        `${LARGEST_PATH} over ${JSON.stringify(body).length} bytes, 31 levels: ${delivery.status} matched=${delivery.body.matched} in ${ms} ms`,
      );
      expect(delivery).toMatchObject({ status: 200, body: { matched: false } });
      expect(await rowsOf('trigger_events', 'trigger_uuid', trigger)).toBe(1);
    },
    DEADLINE_MS,
  );

  it(
    'stops a rule saved before paths were checked (five recursive descents) over a deep body with the coded error',
    async () => {
      const { workflow, trigger, secret } = await hook({ path: '$.type', operator: 'exists' });
      // What a workflow saved before this release may hold: written past the save-time check, straight into its row.
      const db = stack.api.app.get(DataSource);
      const [row] = await db.query('SELECT details FROM triggers WHERE uuid = ?', [trigger]);
      const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
      const legacy = '$..a..a..a..a..a';
      await db.query('UPDATE triggers SET details = ? WHERE uuid = ?', [
        JSON.stringify({
          ...details,
          filter_rules: {
            all: [
              { path: '$.deep', operator: 'exists' },
              { path: legacy, operator: 'exists' },
            ],
          },
        }),
        trigger,
      ]);
      const body = { deep: chain(30) };
      const { delivery, ms, probes } = await deliverWhileProbing(trigger, secret, body);
      console.log(
        `${legacy} (saved before the check) over 31 levels: ${delivery.status} ${delivery.body.code} in ${ms} ms; ${probes.length} GET /health/live meanwhile`,
      );
      expect(delivery).toMatchObject({
        status: 422,
        body: { code: 'EXPRESSION_BUDGET_EXCEEDED', details: { field: 'filter_rules.all[1].path', path: legacy } },
      });
      expect(probes.every((probe) => probe.status === 200)).toBe(true);
      expect(await rowsOf('workflow_runs', 'workflow_uuid', workflow.uuid)).toBe(0);
    },
    DEADLINE_MS,
  );

  it('refuses a body MySQL would not store (32 levels, a lone surrogate) with a coded 422 naming it, writing nothing', async () => {
    const { workflow, trigger, secret } = await hook({});
    for (const body of [JSON.stringify({ deep: chain(31) }), '{"text": "half a pair: \\ud83d"}', '{"\\udc00": 1}']) {
      const { delivery } = await deliverWhileProbing(trigger, secret, body);
      expect([body.slice(0, 30), delivery.status, delivery.body.code, delivery.body.details?.field]).toEqual([
        body.slice(0, 30),
        422,
        'VALIDATION_FAILED',
        'body',
      ]);
    }
    expect([
      await rowsOf('workflow_runs', 'workflow_uuid', workflow.uuid),
      await rowsOf('trigger_events', 'trigger_uuid', trigger),
    ]).toEqual([0, 0]);
    // The deepest storable body is taken, and stored.
    stack.model.script(reply.text('done'));
    const { delivery } = await deliverWhileProbing(trigger, secret, { deep: chain(30) });
    expect(delivery).toMatchObject({ status: 202, body: { matched: true } });
    expect(await stack.waitForRun(delivery.body.run_uuid)).toMatchObject({ status: 'completed' });

    const run = await stack.user.call('POST', `/workflows/${workflow.uuid}/runs`, '{"trigger_output": {"text": "\\ud800"}}');
    expect(run).toMatchObject({ status: 422, body: { code: 'VALIDATION_FAILED', details: { field: 'trigger_output' } } });
  }, 30_000);
});

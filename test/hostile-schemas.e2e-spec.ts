// One tenant cannot take the system down (issue #26): schemas whose smallest instance is gigantic, schedules
// that fire every second, too many schedules, and retry intervals Temporal cannot read are refused where
// they come in, with a coded answer naming the field; and a schema that got past the door (a tool saved
// before the bound; an MCP server's schema is never saved) fails its dry run's step instead of the worker.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ApiClient } from './support/api';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

/** Arrays of `levels` levels, each of at least `minItems`, around a string of at least `minLength`. */
const nested = (levels: number, minItems: number, minLength: number): object =>
  Array.from({ length: levels }).reduce<object>((inner) => ({ type: 'array', minItems, items: inner }), { type: 'string', minLength });
/** About a terabyte of smallest instance: three levels of a thousand items around thousand-character strings. */
const GIGANTIC = { type: 'object', required: ['rows'], properties: { rows: nested(3, 1000, 1000) } };

describe('Hostile schemas, schedules and durations', () => {
  let stack: Stack;
  /** Every schedule a test made: removed from Temporal even when the test failed half-way. */
  const made: string[] = [];
  // Registered before useStack's: runs while the stack is still up.
  afterAll(async () => {
    const client = await stack.temporal();
    await Promise.all(
      made.map((id) =>
        client.schedule
          .getHandle(id)
          .delete()
          .catch(() => undefined),
      ),
    );
  });
  useStack((started) => (stack = started), {
    quotas: { scheduleMinIntervalSeconds: 60, maxSchedulesPerWorkflow: 3, maxSchedulesPerUser: 5 },
  });
  const recorded = <T extends { status: number; body: { id?: string } }>(answer: T): T => {
    if (answer.status === 201 && answer.body.id) made.push(answer.body.id);
    return answer;
  };

  const named = (body: Record<string, unknown>) => ({ name: `wf-${randomUUID().slice(0, 8)}`, ...body });
  /** Schedules that start tomorrow: none fires (and asks the model fake for an unscripted answer) during a test. */
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();
  const tooLarge = (field: string) => ({ status: 422, body: { code: 'SCHEMA_TOO_LARGE', details: { field } } });

  it('refuses a schema whose smallest instance is gigantic at save, naming the field, wherever the schema comes in, and saves nothing', async () => {
    const user = await stack.api.newUser();
    expect(await user.post('/workflows', named({ steps: [llmStep({ output_schema: GIGANTIC })] }))).toMatchObject(
      tooLarge('steps[0].output_schema'),
    );
    const waits = { uuid: randomUUID(), type: 'human_input', name: 'ask', prompt: 'Rows?', input_schema: { allOf: [{ $ref: '#' }] } };
    expect(await user.post('/workflows', named({ steps: [waits] }))).toMatchObject(tooLarge('steps[0].input_schema'));
    expect(
      await user.post('/tools', {
        name: `t_${randomUUID().slice(0, 6)}`,
        description: 'rows',
        parameters: GIGANTIC,
        endpoint_url: 'http://127.0.0.1:9/rows',
      }),
    ).toMatchObject(tooLarge('parameters'));
    expect((await user.get('/workflows')).body.total).toBe(0);
    expect((await user.get('/tools')).body.items.filter((tool: { source?: string; name: string }) => tool.name.startsWith('t_'))).toEqual(
      [],
    );

    const workflow = (await user.post('/workflows', named({ steps: [llmStep()] }))).body;
    const stepUuid = workflow.steps[0].uuid;
    expect(await user.patch(`/steps/${stepUuid}`, { output_schema: GIGANTIC })).toMatchObject(tooLarge('output_schema'));
    expect((await user.get(`/steps/${stepUuid}`)).body.output_schema ?? null).toBeNull();
  });

  it('fails a dry run step whose tool asks for arguments too large to make up, and the worker goes on serving runs', async () => {
    const user = await stack.api.newUser();
    const name = `rows_${randomUUID().slice(0, 6)}`;
    expect(
      (await user.post('/tools', { name, description: 'rows', parameters: { type: 'object' }, endpoint_url: 'http://127.0.0.1:9/rows' }))
        .status,
    ).toBe(201);
    // As a tool saved before the bound was: its schema reaches the dry-run model unchecked.
    await stack.api.app
      .get(DataSource)
      .query('UPDATE tools SET parameters = ? WHERE user_id = ? AND name = ?', [JSON.stringify(GIGANTIC), user.userId, name]);
    const workflow = (await user.post('/workflows', named({ steps: [agentStep({ tools: [name] })] }))).body;

    for (let attempt = 0; attempt < 2; attempt++) {
      const started = await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {}, dry_run: true });
      const run = await waitForEnd(user, started.body.uuid);
      expect(run.status).toBe('failed');
      expect(run.steps[0].error_message).toContain(
        `A dry run cannot make up arguments for ${name}: the schema's smallest value passes 262144 bytes (EXAMPLE_MAX_BYTES)`,
      );
    }

    stack.model.script(reply.text('still here'));
    const other = await stack.runSteps([llmStep()]);
    expect(other).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: 'still here' } }] });
  });

  it('holds the floor between fires whatever the syntax: @every, six or seven fields, interval_seconds, and on patch', async () => {
    const user = await stack.api.newUser();
    const workflow = (await user.post('/workflows', named({ steps: [llmStep()] }))).body;
    const create = async (timing: Record<string, unknown>) =>
      recorded(await user.post(`/workflows/${workflow.uuid}/schedules`, { schedule_type: 'recurring', start_at: tomorrow(), ...timing }));
    for (const [timing, field] of [
      [{ cron_expression: '@every 1s' }, 'cron_expression'],
      [{ cron_expression: '@every 59s/10s' }, 'cron_expression'],
      [{ cron_expression: '*/30 * * * * * *' }, 'cron_expression'],
      [{ cron_expression: '* * * * * *' }, 'cron_expression'],
      [{ cron_expression: '0-59/20 * * * * * *' }, 'cron_expression'],
      [{ interval_seconds: 1 }, 'interval_seconds'],
    ] as const) {
      expect([timing, await create(timing)]).toMatchObject([
        timing,
        { status: 422, body: { code: 'VALIDATION_FAILED', details: { field } } },
      ]);
    }

    // What passes fires no closer than the floor in Temporal's own reckoning.
    const accepted = [];
    for (const cron_expression of ['@every 90s', '0 */5 * * * * *', '* * * * *']) {
      const created = await create({ cron_expression, timezone: 'UTC' });
      expect([cron_expression, created.status]).toEqual([cron_expression, 201]);
      const times = (created.body.next_action_times as string[]).map((at) => Date.parse(at));
      expect(times.length).toBeGreaterThan(1);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(60_000);
      accepted.push(created.body.id as string);
    }
    expect(await user.patch(`/schedules/${accepted[0]}`, { cron_expression: '@every 1s' })).toMatchObject({
      status: 422,
      body: { details: { field: 'cron_expression' } },
    });
    for (const id of accepted) expect((await user.delete(`/schedules/${id}`)).status).toBe(204);
  });

  it('caps schedules per workflow and per user, exactly under concurrent creates', async () => {
    const user = await stack.api.newUser();
    const [first, second] = [
      (await user.post('/workflows', named({ steps: [llmStep()] }))).body,
      (await user.post('/workflows', named({ steps: [llmStep()] }))).body,
    ];
    const create = async (workflowUuid: string) =>
      recorded(
        await user.post(`/workflows/${workflowUuid}/schedules`, {
          schedule_type: 'recurring',
          interval_seconds: 3600,
          start_at: tomorrow(),
        }),
      );

    const racing = await Promise.all(Array.from({ length: 8 }, () => create(first.uuid)));
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    for (const refused of racing.filter((answer) => answer.status === 409)) {
      expect(refused.body).toMatchObject({
        code: 'TOO_MANY_SCHEDULES',
        details: { field: 'workflow_uuid', limit: 3, setting: 'SCHEDULES_MAX_PER_WORKFLOW' },
      });
    }
    expect((await user.get(`/workflows/${first.uuid}/schedules`)).body.total).toBe(3);

    expect((await create(second.uuid)).status).toBe(201);
    expect((await create(second.uuid)).status).toBe(201);
    expect(await create(second.uuid)).toMatchObject({
      status: 409,
      body: { code: 'TOO_MANY_SCHEDULES', details: { limit: 5, setting: 'SCHEDULES_MAX_PER_USER' } },
    });
    // Another user's schedules are not counted.
    const other = await stack.api.newUser();
    const theirs = (await other.post('/workflows', named({ steps: [llmStep()] }))).body;
    expect(
      recorded(
        await other.post(`/workflows/${theirs.uuid}/schedules`, {
          schedule_type: 'recurring',
          interval_seconds: 3600,
          start_at: tomorrow(),
        }),
      ).status,
    ).toBe(201);

    const [oneOfFirst] = (await user.get(`/workflows/${first.uuid}/schedules`)).body.items;
    expect((await user.delete(`/schedules/${oneOfFirst.id}`)).status).toBe(204);
    expect((await create(second.uuid)).status).toBe(201);
    for (const [client, workflowUuid] of [
      [user, first.uuid],
      [user, second.uuid],
      [other, theirs.uuid],
    ] as const)
      expect((await client.delete(`/workflows/${workflowUuid}`)).status).toBe(204);
  });

  it('refuses retry intervals Temporal cannot read, naming the field, and runs a step that retries after a millisecond', async () => {
    const user = await stack.api.newUser();
    const refused = async (retry_policy: object, field: string) =>
      expect(await user.post('/workflows', named({ steps: [llmStep({ retry_policy })] }))).toMatchObject({
        status: 422,
        body: { code: 'VALIDATION_FAILED', details: { field: `steps[0].retry_policy.${field}` } },
      });
    await refused({ initial_interval_seconds: 1e-7 }, 'initial_interval_seconds');
    await refused({ maximum_interval_seconds: 0.0015 }, 'maximum_interval_seconds');
    await refused({ maximum_interval_seconds: 1e300 }, 'maximum_interval_seconds');
    const workflow = (await user.post('/workflows', named({ steps: [llmStep()] }))).body;
    expect(
      await user.post(`/workflows/${workflow.uuid}/steps`, llmStep({ retry_policy: { initial_interval_seconds: 1e-7 } })),
    ).toMatchObject({
      status: 422,
      body: { details: { field: 'retry_policy.initial_interval_seconds' } },
    });

    stack.model.script(reply.error(500), reply.text('second attempt'));
    const run = await stack.runSteps([
      llmStep({ retry_policy: { max_attempts: 2, initial_interval_seconds: 0.001, maximum_interval_seconds: 0.001 } }),
    ]);
    expect(run).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: 'second attempt' } }] });
  });
});

async function waitForEnd(user: ApiClient, runUuid: string) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const { body } = await user.get(`/runs/${runUuid}`);
    if (body.status !== 'running') return body;
  }
  throw new Error(`run ${runUuid} did not end within 60 s`);
}

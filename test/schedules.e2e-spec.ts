// Schedules are Temporal Schedules: they start runs on their own, pause, trigger now, fire once, survive
// an API restart, and go away with their workflow.
import { randomUUID } from 'node:crypto';
import { startApi, ApiClient } from './support/api';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { startStack, type RunBody, type Stack } from './support/stack';

/** How long after its due time a scheduled start shows up in GET /runs, at most, on a loaded machine. */
const RECORDING_GRACE_MS = 2000;

describe('Schedules', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    stack.model.respondWith(() => reply.text('scheduled work'));
  });
  afterAll(() => stack.close());

  const workflow = async () =>
    (await stack.user.post('/workflows', { name: `sched-${randomUUID().slice(0, 6)}`, steps: [llmStep()] })).body;
  const runsOf = async (scheduleId: string): Promise<RunBody[]> =>
    (await stack.user.get(`/runs?schedule_id=${scheduleId}&limit=200`)).body.items;

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      const value = await probe();
      if (value !== undefined) return value;
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('runs a recurring schedule on its own, pauses it, triggers it now, and keeps it across an API restart', async () => {
    const wf = await workflow();
    const created = await stack.user.post(`/workflows/${wf.uuid}/schedules`, {
      schedule_type: 'recurring',
      interval_seconds: 2,
      trigger_output: { source: 'schedule' },
      note: 'every 2 s',
    });
    expect(created).toMatchObject({
      status: 201,
      body: { schedule_type: 'recurring', interval_seconds: 2, paused: false, exists_in_temporal: true },
    });
    const id = created.body.id as string;
    expect(created.body.next_action_times.length).toBeGreaterThan(0);

    const two = await until('two scheduled runs', async () => ((await runsOf(id)).length >= 2 ? runsOf(id) : undefined));
    for (const run of two) expect(run.schedule_id).toBe(id);
    const finished = await stack.waitForRun(two[0].uuid);
    expect(finished).toMatchObject({ status: 'completed', trigger_output: { raw_data: { source: 'schedule' } } });

    const pausedAt = Date.now();
    const paused = (await stack.user.patch(`/schedules/${id}`, { paused: true })).body;
    expect(paused).toMatchObject({ paused: true });
    const countWhenPaused = (await runsOf(id)).length;
    const startedSincePause = async () => (await runsOf(id)).length - countWhenPaused;
    // Two intervals go by with the schedule paused: its second due time after the pause passes, plus the
    // time a start made then would take to show up. Temporal freezes a paused schedule's next action
    // times, so they name the due times to wait for but never move on their own.
    const [, secondDue] = paused.next_action_times.map(Date.parse).filter((due: number) => due > pausedAt);
    expect(secondDue).toBeGreaterThan(pausedAt);
    await until('two due times to go by while paused', async () => {
      expect(await startedSincePause()).toBeLessThanOrEqual(1); // at most one run that was already starting
      return Date.now() > secondDue + RECORDING_GRACE_MS ? true : undefined;
    });
    const stillPaused = (await runsOf(id)).length;
    expect(stillPaused - countWhenPaused).toBeLessThanOrEqual(1);

    expect((await stack.user.post(`/schedules/${id}/trigger`)).status).toBe(202);
    await until('the triggered run', async () => ((await runsOf(id)).length > stillPaused ? true : undefined));

    const described = await stack.user.get(`/schedules/${id}`);
    expect(described.body.recent_actions.filter((a: { run_uuid: string | null }) => a.run_uuid).length).toBeGreaterThanOrEqual(2);
    expect((await stack.user.get(`/workflows/${wf.uuid}/schedules`)).body.items.map((s: { id: string }) => s.id)).toEqual([id]);

    // A new API process (same database, same Temporal) sees the same schedule.
    const restarted = await startApi(stack.api.config);
    try {
      const again = await new ApiClient(restarted.baseUrl, stack.user.key, stack.user.userId).get(`/schedules/${id}`);
      expect(again.body).toMatchObject({ id, paused: true, exists_in_temporal: true });
    } finally {
      await restarted.close();
    }
    expect((await stack.user.delete(`/schedules/${id}`)).status).toBe(204);
    expect((await stack.user.get(`/schedules/${id}`)).status).toBe(404);
  });

  it('fires a one-off schedule once', async () => {
    const wf = await workflow();
    const runAt = new Date(Date.now() + 2500).toISOString();
    const created = await stack.user.post(`/workflows/${wf.uuid}/schedules`, { schedule_type: 'scheduled', run_at: runAt });
    // 1 while it waits; 0 when a loaded machine answered the create after the fire time already.
    expect(created.body).toMatchObject({ schedule_type: 'scheduled', run_at: runAt, remaining_actions: expect.any(Number) });
    expect(created.body.remaining_actions).toBeLessThanOrEqual(1);
    const [run] = await until('the one-off run', async () =>
      (await runsOf(created.body.id)).length ? runsOf(created.body.id) : undefined,
    );
    await stack.waitForRun(run.uuid);
    const after = await stack.user.get(`/schedules/${created.body.id}`);
    expect(after.body).toMatchObject({ remaining_actions: 0, next_action_times: [] });
    expect(await runsOf(created.body.id)).toHaveLength(1);
  });

  it('backfills the runs a past window would have started', async () => {
    const wf = await workflow();
    const { id } = (
      await stack.user.post(`/workflows/${wf.uuid}/schedules`, {
        schedule_type: 'recurring',
        cron_expression: '0 * * * *',
        timezone: 'UTC',
      })
    ).body;
    const hour = 3_600_000;
    const lastHour = Math.floor(Date.now() / hour) * hour;
    const window = { start: new Date(lastHour - 2 * hour - 1000).toISOString(), end: new Date(lastHour - 1000).toISOString() };
    expect((await stack.user.post(`/schedules/${id}/backfill`, window)).status).toBe(202);
    const runs = await until('two backfilled runs', async () => ((await runsOf(id)).length >= 2 ? runsOf(id) : undefined));
    expect(runs).toHaveLength(2);
    expect((await stack.user.post(`/schedules/${id}/backfill`, { start: window.end, end: window.start })).body).toMatchObject({
      details: { field: 'end' },
    });
    await stack.user.delete(`/schedules/${id}`);
  });

  it('starts a run at once for an immediate schedule', async () => {
    const wf = await workflow();
    const created = await stack.user.post(`/workflows/${wf.uuid}/schedules`, { schedule_type: 'immediate', trigger_output: { now: true } });
    expect(created).toMatchObject({ status: 201, body: { schedule_type: 'immediate', run: { status: 'running' } } });
    expect((await stack.waitForRun(created.body.run.uuid)).status).toBe('completed');
  });

  it.each([
    [{ schedule_type: 'recurring', cron_expression: 'every day' }, 'cron_expression'],
    [{ schedule_type: 'recurring', cron_expression: '0 9 * * *', timezone: 'Nowhere/Land' }, 'timezone'],
    [{ schedule_type: 'scheduled', run_at: '2020-01-01T00:00:00Z' }, 'run_at'],
  ])('refuses %j with a 422 naming %s', async (body, field) => {
    const wf = await workflow();
    expect(await stack.user.post(`/workflows/${wf.uuid}/schedules`, body)).toMatchObject({ status: 422, body: { details: { field } } });
    expect((await stack.user.get(`/workflows/${wf.uuid}/schedules`)).body.items).toEqual([]);
  });

  it('pauses schedules of a paused workflow, and an archived one refuses new runs', async () => {
    const wf = await workflow();
    const { id } = (await stack.user.post(`/workflows/${wf.uuid}/schedules`, { schedule_type: 'recurring', interval_seconds: 3600 })).body;
    expect((await stack.user.patch(`/workflows/${wf.uuid}`, { status: 'paused' })).body.status).toBe('paused');
    expect((await stack.user.get(`/schedules/${id}`)).body.paused).toBe(true);
    expect((await stack.user.patch(`/workflows/${wf.uuid}`, { status: 'active' })).status).toBe(200);
    expect((await stack.user.get(`/schedules/${id}`)).body.paused).toBe(false);
    await stack.user.patch(`/workflows/${wf.uuid}`, { status: 'archived' });
    expect(await stack.user.post(`/workflows/${wf.uuid}/runs`, {})).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', details: { field: 'status' } },
    });
    expect((await stack.user.get(`/schedules/${id}`)).body.paused).toBe(true);
    expect((await stack.user.patch(`/workflows/${wf.uuid}`, { status: 'deleted' })).body).toMatchObject({ details: { field: 'status' } });
  });

  it('lets a paused workflow start runs by hand while its schedules start none, even when triggered', async () => {
    const wf = await workflow();
    const { id } = (await stack.user.post(`/workflows/${wf.uuid}/schedules`, { schedule_type: 'recurring', interval_seconds: 3600 })).body;
    await stack.user.patch(`/workflows/${wf.uuid}`, { status: 'paused' });
    expect(await stack.user.post(`/schedules/${id}/trigger`)).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', details: { field: 'status' } },
    });
    const window = { start: new Date(Date.now() - 3 * 3600_000).toISOString(), end: new Date().toISOString() };
    expect(await stack.user.post(`/schedules/${id}/backfill`, window)).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', details: { field: 'status' } },
    });
    const byHand = await stack.user.post(`/workflows/${wf.uuid}/runs`, {});
    expect(byHand.status).toBe(201);
    expect(await stack.waitForRun(byHand.body.uuid)).toMatchObject({ status: 'completed' });
    expect(await runsOf(id)).toEqual([]);
  });

  it('pauses schedules of a deactivated workflow and deletes them with the workflow', async () => {
    const wf = await workflow();
    const { id } = (
      await stack.user.post(`/workflows/${wf.uuid}/schedules`, {
        schedule_type: 'recurring',
        cron_expression: '0 9 * * MON-FRI',
        timezone: 'Europe/Paris',
      })
    ).body;
    expect((await stack.user.get(`/schedules/${id}`)).body).toMatchObject({
      cron_expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Paris',
      paused: false,
    });
    await stack.user.patch(`/workflows/${wf.uuid}`, { is_active: false });
    expect((await stack.user.get(`/schedules/${id}`)).body.paused).toBe(true);
    const other = await stack.api.newUser();
    expect((await other.get(`/schedules/${id}`)).status).toBe(404);
    expect((await stack.user.delete(`/workflows/${wf.uuid}`)).status).toBe(204);
    expect((await stack.user.get(`/schedules/${id}`)).status).toBe(404);
  });
});

// A run's live events are written by its audit's own writes (triggers on the run, step and call tables):
// every path the worker takes leaves its events, numbered per run in the order they committed.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RunEventRepository, type RunEventRecord, type WorkflowRepository } from '@app/persistence';
import { endRun, modelCall, toolCall, workflowWithRun } from './run-fixtures';
import { setUpRunRepository, type RunRepositories } from './run-repository.setup';

describe(RunEventRepository.name, () => {
  let setup: Awaited<ReturnType<typeof setUpRunRepository>>;
  let runs: RunRepositories['runs'];
  let steps: RunRepositories['steps'];
  let audit: RunRepositories['audit'];
  let workflows: WorkflowRepository;
  let sut: RunEventRepository;

  beforeAll(async () => {
    setup = await setUpRunRepository();
    ({ runs, steps, audit, workflows } = setup);
    sut = setup.get(RunEventRepository);
  });
  afterAll(() => setup.close());

  const typesOf = (events: RunEventRecord[]) => events.map((event) => event.type);

  it("writes a run's events with its audit, numbered 1, 2, 3... and ending with the run's end", async () => {
    const { userId, run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    const [first, second] = run.steps.map((step) => step.uuid);
    const output = {
      uuid: randomUUID(),
      run_uuid: run.uuid,
      user_id: userId,
      step_instance_uuid: first,
      raw_data: { answer: 42 },
      summary: 'the answer',
      markdown_representation: null,
      size_bytes: 13,
    };

    const attempt = await steps.startStepWithCall(
      first,
      {},
      { list: [{ role: 'user', content: 'go' }], apart: false },
      modelCall(run, first, { status: 'running' }),
    );
    await steps.completeStep(output.step_instance_uuid, output, { call: modelCall(run, first, { attempt: attempt!, duration_ms: 40 }) });
    await steps.startStep(second, {});
    await audit.recordToolCall(toolCall(run, second, { input: { q: 'x' } }));
    await audit.recordToolCall(toolCall(run, second, { status: 'completed', output: { r: 1 }, duration_ms: 5 }));
    await endRun(runs, run.uuid, 'partial_success', 'second step interrupted');

    const events = await sut.eventsAfter(run.uuid, 0, 100);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(typesOf(events)).toEqual([
      'run_started',
      'step_started',
      'model_call_started',
      'model_call_finished',
      'step_completed',
      'step_started',
      'tool_call_started',
      'tool_call_finished',
      'step_skipped',
      'run_ended',
    ]);
    expect(events[2].payload).toMatchObject({ instance_uuid: first, turn: 1, attempt: 1, model: 'test-model', provider: 'openai' });
    expect(events[3].payload).toMatchObject({ status: 'completed', total_tokens: 15, duration_ms: 40 });
    expect(events[4].payload).toMatchObject({ instance_uuid: first, output_id: output.uuid, summary: 'the answer', total_tokens: 15 });
    expect(events[6].payload).toMatchObject({ tool_name: 'get_output', input: '{"q":"x"}' });
    expect(events[7].payload).toMatchObject({ status: 'completed', output: '{"r":1}', duration_ms: 5 });
    expect(events[9].payload).toMatchObject({ status: 'partial_success', error: 'second step interrupted', total_tokens: 15 });
    expect(await sut.lastSeq(run.uuid)).toBe(10);
    expect(await sut.eventsAfter(run.uuid, 8, 100)).toEqual(events.slice(8));
  });

  it('announces a later attempt of a model call as a restart, after closing the attempt its dead worker left running', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.startStep(step, {});
    await audit.recordModelCall(modelCall(run, step, { status: 'running' }));
    const before = await sut.lastSeq(run.uuid);

    await audit.recordModelCall(modelCall(run, step, { status: 'running' }));

    const events = await sut.eventsAfter(run.uuid, before, 100);
    expect(typesOf(events)).toEqual(['model_call_finished', 'attempt_restarted', 'model_call_started']);
    expect(events[0].payload).toMatchObject({ attempt: 1, status: 'failed', error: expect.stringContaining('Lost') });
    expect(events[1].payload).toMatchObject({ instance_uuid: step, turn: 1, attempt: 2, previous_attempt: 1 });
  });

  it("announces a correction turn as a restart of the answer it corrects, and an agent's next turn as no restart", async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const step = run.steps[0].uuid;
    await steps.startStep(step, {});
    await audit.recordModelCall(modelCall(run, step, { turn: 1 }));
    const before = await sut.lastSeq(run.uuid);

    await audit.recordModelCall(modelCall(run, step, { turn: 2 }));
    await audit.recordModelCall(
      modelCall(run, step, { turn: 3, status: 'running', request: { model: 'test-model', message_count: 6, corrects_turn: 2 } }),
    );

    const events = await sut.eventsAfter(run.uuid, before, 100);
    expect(typesOf(events)).toEqual(['model_call_started', 'model_call_finished', 'attempt_restarted', 'model_call_started']);
    expect(events[2].payload).toMatchObject({
      instance_uuid: step,
      turn: 3,
      attempt: 1,
      reason: 'correction',
      previous_turn: 2,
      previous_attempt: null,
    });
  });

  it('tells a guard rail that ends the run, with the step it refused, just before the end', async () => {
    const { run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    const [first, second] = run.steps;
    await steps.startStep(second.uuid, {});
    const message = `Guard repeated_input: step "${second.step_name}" was reached again while no step's output had changed since its last run`;

    await endRun(runs, run.uuid, 'failed', message, {
      rail: 'repeated_input',
      step_uuid: second.step_definition_uuid,
      step_name: second.step_name,
    });

    const events = await sut.eventsAfter(run.uuid, 2, 100);
    expect(typesOf(events)).toEqual(['step_skipped', 'step_skipped', 'guard_rail_hit', 'run_ended']);
    expect(events[2].payload).toEqual({
      run_uuid: run.uuid,
      rail: 'repeated_input',
      message,
      step_name: second.step_name,
      step_uuid: second.step_definition_uuid,
      handed_to: null,
    });
    expect(first.step_name).not.toBe(second.step_name);
    expect(JSON.parse((await setup.rows.run(run.uuid)).guard_rail ?? 'null')).toEqual({
      rail: 'repeated_input',
      step_uuid: second.step_definition_uuid,
      step_name: second.step_name,
    });

    const other = (await workflowWithRun(workflows, 1)).run;
    await runs.create(other);
    await endRun(runs, other.uuid, 'failed', 'Guard max_steps reached: the run made 3 step executions without ending', {
      rail: 'max_steps',
      step_uuid: null,
      step_name: null,
    });
    const [hit] = (await sut.eventsAfter(other.uuid, 0, 100)).filter((event) => event.type === 'guard_rail_hit');
    expect(hit.payload).toMatchObject({ rail: 'max_steps', step_name: null, step_uuid: null, handed_to: null });
  });

  it('reads the guard rail from the data the run ends with, not from its error’s text', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);

    await endRun(runs, run.uuid, 'failed', 'Guard max_steps reached: a step failed with a message that reads like a guard’s');

    expect(typesOf(await sut.eventsAfter(run.uuid, 0, 100))).not.toContain('guard_rail_hit');
    expect(await setup.rows.run(run.uuid)).toMatchObject({ guard_rail: null });
  });

  it('tells a guard rail that hands the run to a person, with the hand-off step, just before the wait', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const handoff = run.steps[0].uuid;
    const reason = 'Guard timeout_seconds reached: the run walked for more than 1 s without ending';
    const guard_rail = { rail: 'timeout_seconds', step_uuid: null, step_name: null };

    await steps.awaitInput(run.uuid, handoff, {
      prompt: `Decide\n\n${reason}`,
      input_schema: null,
      timeout_seconds: null,
      reason,
      guard_rail,
    });

    const events = await sut.eventsAfter(run.uuid, 1, 100);
    expect(typesOf(events)).toEqual(['guard_rail_hit', 'awaiting_input', 'run_status']);
    expect(events[0].payload).toMatchObject({
      rail: 'timeout_seconds',
      message: reason,
      step_name: null,
      handed_to: { instance_uuid: handoff, step_name: run.steps[0].step_name },
    });
  });

  it('tells a wait for a person with its question, a failure with its error, and an iteration by its index', async () => {
    const { run } = await workflowWithRun(workflows, 2);
    await runs.create(run);
    const [asking, failing] = run.steps.map((step) => step.uuid);
    const iteration = randomUUID();

    await steps.awaitInput(run.uuid, asking, { question: 'ok?' });
    await steps.openExecution(failing, iteration, 3);
    await steps.failStep(failing, 'it broke');

    const events = await sut.eventsAfter(run.uuid, 1, 100);
    expect(typesOf(events)).toEqual(['awaiting_input', 'run_status', 'loop_iteration', 'step_failed']);
    expect(events[0].payload).toMatchObject({ instance_uuid: asking, input: { question: 'ok?' } });
    expect(events[1].payload).toMatchObject({ status: 'awaiting_input' });
    expect(events[2].payload).toMatchObject({ instance_uuid: iteration, parent_instance_uuid: failing, execution_index: 3 });
    expect(events[3].payload).toMatchObject({ instance_uuid: failing, error: 'it broke' });
  });

  it('opens 100 iterations of one loop at once, none refused, each told once and numbered in turn', async () => {
    const { run } = await workflowWithRun(workflows, 1);
    await runs.create(run);
    const loop = run.steps[0].uuid;

    // Each opening's event counts on the run's row: taken in turn, not in a deadlock (which lost all three tries for some).
    const opened = await Promise.allSettled(Array.from({ length: 100 }, (_, index) => steps.openExecution(loop, randomUUID(), index)));

    expect(opened.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const events = await sut.eventsAfter(run.uuid, 1, 200);
    expect(events.map((event) => event.payload.execution_index).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 100 }, (_, index) => index),
    );
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 100 }, (_, k) => k + 2));
  });

  it("lists the events of all a workflow's runs by id, and sweeps deltas once they are old", async () => {
    const saved = await workflowWithRun(workflows, 1);
    const other = saved.anotherRun();
    await runs.create(saved.run);
    const from = (await sut.workflowEventsAfter(saved.workflowUuid, 0, 100)).at(-1)!.id;
    await runs.create(other);
    const step = other.steps[0].uuid;
    await sut.appendDeltas(other.uuid, [
      { step_instance_uuid: step, turn: 1, attempt: 1, kind: 'text', tool_index: null, text: 'hel' },
      { step_instance_uuid: step, turn: 1, attempt: 1, kind: 'text', tool_index: null, text: 'lo' },
    ]);

    const events = await sut.workflowEventsAfter(saved.workflowUuid, from, 100);
    const deltas = await sut.deltasAfter(other.uuid, 0, 100);
    expect(events.map((event) => [event.run_uuid, event.type])).toEqual([[other.uuid, 'run_started']]);
    expect(deltas.map((delta) => delta.text).join('')).toBe('hello');
    expect(await sut.deltasOf(other.uuid, { step_instance_uuid: step, turn: 1, attempt: 1 }, deltas[0].id, 100)).toEqual([deltas[0]]);

    // An end keeps pieces a watcher may still read, and sweeps those older than any call streams.
    await endRun(runs, other.uuid, 'completed', null);
    expect(await sut.deltasAfter(other.uuid, 0, 100)).toHaveLength(2);
    await setup.get(DataSource).query('UPDATE run_deltas SET created_at = created_at - INTERVAL 11 MINUTE WHERE id = ?', [deltas[0].id]);
    await endRun(runs, saved.run.uuid, 'completed', null);
    expect(await sut.deltasAfter(other.uuid, 0, 100)).toEqual([deltas[1]]);
  });
});

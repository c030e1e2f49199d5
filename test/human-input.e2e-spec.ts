// human_input steps end to end: the run waits for a person, the answer arrives through a
// Temporal Update checked against the step's input_schema, timeouts take the default or fail, a waiting
// run can be cancelled or outlive its worker, and a graph's guard rail hands the run to a person.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { llmStep } from './support/factories';

const humanStep = (overrides: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  type: 'human_input',
  name: `human-${randomUUID().slice(0, 8)}`,
  prompt: 'Approve the summary?',
  input_schema: { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' }, note: { type: 'string' } } },
  ...overrides,
});

type Step = { uuid: string; name: string };
const always = (source: Step, target: Step | null) => ({
  source_step_uuid: source.uuid,
  target_step_uuid: target?.uuid ?? null,
  condition_type: 'ALWAYS',
  condition_value: null,
});

describe('Human input', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const waiting = (run: RunBody) => run.status === 'awaiting_input';
  const startWaiting = async (steps: Record<string, unknown>[], fields: Record<string, unknown> = {}) => {
    const workflow = await stack.createWorkflow(steps, fields);
    const started = await stack.startRun(workflow.uuid);
    return stack.waitForRun(started.uuid, waiting);
  };
  const answer = (run: RunBody, step: Step, input: unknown) => stack.user.post(`/runs/${run.uuid}/steps/${step.uuid}/input`, { input });

  it('waits for a person, refuses an answer that breaks input_schema, and goes on with a good one', async () => {
    const summarise = llmStep({ name: 'summarise' });
    const approve = humanStep({ name: 'approve' });
    const publish = llmStep({ name: 'publish', system_prompt: `Publish with the note: <<step_output.${approve.uuid}.note>>` });
    stack.model.script(reply.text('a summary'), reply.text('published'));

    const run = await startWaiting([summarise, approve, publish]);
    expect(run.steps.map((step: RunBody) => step.status)).toEqual(['completed', 'awaiting_input', 'pending']);
    expect(run.steps[1].input_data).toEqual({ prompt: 'Approve the summary?', input_schema: approve.input_schema, timeout_seconds: null });
    const listed = await stack.user.get('/runs?status=awaiting_input');
    expect(listed.body.items.map((item: RunBody) => item.uuid)).toContain(run.uuid);

    const bad = await answer(run, approve, { approved: 'yes' });
    expect(bad).toMatchObject({
      status: 422,
      body: { code: 'INVALID_HUMAN_INPUT', details: { field: 'input', errors: ['approved must be boolean'] } },
    });
    expect(await answer(run, summarise, { approved: true })).toMatchObject({ status: 409, body: { code: 'STEP_NOT_AWAITING_INPUT' } });
    expect((await stack.user.get(`/runs/${run.uuid}`)).body.status).toBe('awaiting_input');

    const good = await answer(run, approve, { approved: true, note: 'ship it' });
    expect(good).toMatchObject({ status: 200, body: { run_uuid: run.uuid, step_uuid: approve.uuid, status: 'accepted' } });
    const done = await stack.waitForRun(run.uuid);
    expect(done.status).toBe('completed');
    expect(done.steps[1]).toMatchObject({ status: 'completed', output: { raw_data: { approved: true, note: 'ship it' } } });
    expect(stack.model.requests[1].body.messages[0].content).toBe('Publish with the note: ship it');
    expect(await answer(run, approve, { approved: true })).toMatchObject({ status: 409, body: { code: 'STEP_NOT_AWAITING_INPUT' } });
  });

  it("refuses, in the workflow's update validator, an answer for a human step that does not wait yet", async () => {
    const [first, second] = [humanStep({ input_schema: null }), humanStep({ input_schema: null })];
    const run = await startWaiting([first, second]);
    expect(await answer(run, second, 'too early')).toMatchObject({
      status: 409,
      body: { code: 'STEP_NOT_AWAITING_INPUT', message: expect.stringContaining('not waiting') },
    });
    expect(await answer(run, first, 'one')).toMatchObject({ status: 200 });
    const next = await stack.waitForRun(run.uuid, (candidate) => candidate.steps[1].status === 'awaiting_input');
    expect(await answer(next, second, 'two')).toMatchObject({ status: 200 });
    const done = await stack.waitForRun(run.uuid);
    expect(done.steps.map((step: RunBody) => step.output.raw_data)).toEqual(['one', 'two']);
  });

  it('takes the default when timeout_seconds pass without an answer', async () => {
    const approve = humanStep({ timeout_seconds: 1, default: { approved: false, note: 'nobody answered' } });
    const done = await stack.runSteps([approve], {});
    expect(done).toMatchObject({
      status: 'completed',
      steps: [{ status: 'completed', output: { raw_data: { approved: false, note: 'nobody answered' } } }],
    });
  });

  it('fails the step, naming the timeout, when no answer comes and there is no default', async () => {
    const done = await stack.runSteps([humanStep({ timeout_seconds: 1 })], {});
    expect(done).toMatchObject({
      status: 'failed',
      error_message: expect.stringContaining('No answer within 1 s'),
      steps: [{ status: 'failed' }],
    });
  });

  it('cancels a run while it waits', async () => {
    const run = await startWaiting([humanStep(), llmStep()]);
    expect(await stack.user.post(`/runs/${run.uuid}/cancel`)).toMatchObject({ status: 202, body: { cancel_requested: true } });
    const done = await stack.waitForRun(run.uuid);
    expect(done.status).toBe('cancelled');
    expect(done.steps.map((step: RunBody) => step.status)).toEqual(['failed', 'skipped']);
  });

  it('keeps waiting across a worker restart, and takes the answer on the new worker', async () => {
    const approve = humanStep();
    const run = await startWaiting([approve]);
    await stack.worker.shutdown();
    await stack.startWorker();
    expect(await answer(run, approve, { approved: true })).toMatchObject({ status: 200, body: { status: 'accepted' } });
    expect(await stack.waitForRun(run.uuid)).toMatchObject({ status: 'completed', steps: [{ output: { raw_data: { approved: true } } }] });
  });

  it('hands a graph run that hits max_steps to its human hand-off step, with the reason in its prompt', async () => {
    const [ping, pong] = [llmStep({ name: 'ping' }), llmStep({ name: 'pong' })];
    const handoff = humanStep({ name: 'handoff', prompt: 'The run is stuck: what now?', input_schema: null });
    stack.model.respondWith(() => reply.text(`again ${stack.model.requests.length}`)); // a new output each time: the cycle makes progress
    const graph = {
      entry_node: ping.uuid,
      max_steps: 3,
      human_handoff_step_uuid: handoff.uuid,
      edges: [always(ping, pong), always(pong, ping)],
    };

    const run = await startWaiting([ping, pong, handoff], { graph });
    expect(stack.model.requests).toHaveLength(3);
    const handoffRow = run.steps.find((step: RunBody) => step.name === 'handoff');
    expect(handoffRow!.iterations[0]).toMatchObject({
      status: 'awaiting_input',
      input_data: { prompt: expect.stringContaining('Guard max_steps reached'), reason: expect.stringContaining('max_steps') },
    });
    expect(handoffRow!.iterations[0].input_data.prompt).toMatch(/^The run is stuck: what now\?/);

    expect(await answer(run, handoff, 'stop here')).toMatchObject({ status: 200 });
    const done = await stack.waitForRun(run.uuid);
    expect(done.status).toBe('completed');
    expect(done.steps.find((step: RunBody) => step.name === 'handoff')).toMatchObject({
      status: 'completed',
      output: { raw_data: 'stop here' },
    });
  });

  it('hands a cycle that repeats without new input to the hand-off step, with the guard as the reason', async () => {
    const [ping, pong] = [llmStep({ name: 'ping' }), llmStep({ name: 'pong' })];
    const handoff = humanStep({ name: 'handoff', prompt: 'Stuck?', input_schema: null });
    stack.model.respondWith(() => reply.text('the same answer'));
    const graph = {
      entry_node: ping.uuid,
      max_steps: 4,
      human_handoff_step_uuid: handoff.uuid,
      edges: [always(ping, pong), always(pong, ping)],
    };

    const run = await startWaiting([ping, pong, handoff], { graph });
    expect(stack.model.requests).toHaveLength(3);
    const waiting = run.steps.find((step: RunBody) => step.name === 'handoff')!.iterations[0];
    expect(waiting.input_data.reason).toContain('Guard repeated_input');

    // The hand-off step has no out-edge: the person's answer ends the run.
    expect(await answer(run, handoff, 'give up')).toMatchObject({ status: 200 });
    expect(await stack.waitForRun(run.uuid)).toMatchObject({ status: 'completed' });
  });

  it('fails a graph run that walks past timeout_seconds, naming the guard', async () => {
    const [ping, pong] = [llmStep({ name: 'ping' }), llmStep({ name: 'pong' })];
    stack.model.respondWith(() => reply.text(`again ${stack.model.requests.length}`)); // a new output each time: the cycle makes progress
    const graph = { entry_node: ping.uuid, max_steps: 200, timeout_seconds: 1, edges: [always(ping, pong), always(pong, ping)] };
    const done = await stack.runSteps([ping, pong], {}, { fields: { graph } });
    expect(done).toMatchObject({ status: 'failed', error_message: expect.stringContaining('Guard timeout_seconds reached') });
    expect(stack.model.requests.length).toBeLessThan(200);
  });
});

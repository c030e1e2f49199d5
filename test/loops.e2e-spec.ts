// Loops owned by code, end to end: for_each and repeat_until steps whose iterations are their own
// activities and audit rows, history references into a loop's outputs, and a loop of thousands that
// continues as new so each Temporal history stays bounded.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { executionHistories } from './support/temporal-history';
import { useStack, type RunBody, type Stack } from './support/stack';
import { agentStep, llmStep } from './support/factories';

const LONG_LOOP = 300;
/** LOOP_ITERATIONS_PER_EXECUTION of this spec's stack (the product's is 500): six executions for the long loop. */
const ITERATIONS_PER_EXECUTION = 50;
/** The iterations of one execution at ~6 events each, and the loop's start and end. */
const HISTORY_BOUND = ITERATIONS_PER_EXECUTION * 6 + 500;

describe('Loops', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { loopIterationsPerExecution: ITERATIONS_PER_EXECUTION });

  const run = (steps: Record<string, unknown>[], trigger_output: unknown, timeoutMs?: number, fields?: Record<string, unknown>) =>
    stack.runSteps(steps, trigger_output, { timeoutMs, fields });

  const systemPrompts = () => stack.model.requests.map((request) => request.body.messages[0].content);

  it('runs a for_each step once per item, in order, and a later step reads its history by index', async () => {
    const items = Array.from({ length: 25 }, (_, i) => ({ name: `item-${i}` }));
    const each = llmStep({
      name: 'each',
      system_prompt: 'Handle <<item.name>> (index <<item_index>>)',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    const after = llmStep({
      name: 'after',
      system_prompt: `Second to last: <<step_output.${each.uuid}[-2].n>>; out of the window: <<step_output.${each.uuid}[-7].n|gone>>; count <<step_output.${each.uuid}.length>>`,
    });
    stack.model.script(...items.map((_, i) => reply.json({ n: i })), reply.text('done'));

    const done = await run([each, after], { items });

    expect(done.status).toBe('completed');
    expect(systemPrompts().slice(0, 25)).toEqual(items.map((item, i) => `Handle ${item.name} (index ${i})`));
    expect(systemPrompts()[25]).toBe('Second to last: 23; out of the window: gone; count 25');
    const step = done.steps[0];
    expect(step).toMatchObject({
      status: 'completed',
      loop: { type: 'for_each', iterations: 25, stopped_by: 'exhausted' },
      iteration_count: 25,
      iterations_shown: 'all',
    });
    expect(step.output!.raw_data).toEqual(items.map((_, i) => ({ n: i })));
    expect(step.iterations.map((it: RunBody) => [it.iteration, it.status, it.output.raw_data.n, it.model_calls.length])).toEqual(
      items.map((_, i) => [i, 'completed', i, 1]),
    );
    expect(step.iterations[3].messages[0]).toEqual({ role: 'system', content: 'Handle item-3 (index 3)' });
    expect(done.steps).toHaveLength(2); // iterations are nested under their step, not steps of their own
    expect(done.tokens.total).toBe(26 * 15);
    expect(step.tokens.total).toBe(25 * 15); // a looping step's tokens are its iterations'
  });

  it('repeats until the predicate holds on the latest answer, each iteration seeing the one before', async () => {
    const uuid = randomUUID();
    const refine = llmStep({
      uuid,
      name: 'refine',
      system_prompt: `Improve draft <<step_output.${uuid}[-1].round|0>>`,
      loop: { type: 'repeat_until', predicate_path: '$.done', predicate_value: true, max_iters: 5 },
    });
    stack.model.script(reply.json({ round: 1, done: false }), reply.json({ round: 2, done: false }), reply.json({ round: 3, done: true }));

    const done = await run([refine], {});

    expect(done.status).toBe('completed');
    expect(systemPrompts()).toEqual(['Improve draft 0', 'Improve draft 1', 'Improve draft 2']);
    expect(done.steps[0]).toMatchObject({
      loop: { type: 'repeat_until', iterations: 3, stopped_by: 'predicate' },
      iteration_count: 3,
      output: { raw_data: { round: 3, done: true } },
    });
  });

  it('names the bound that ended a loop: max_iters for repeat_until, max_items for for_each', async () => {
    const retry = llmStep({ name: 'retry', loop: { type: 'repeat_until', predicate_path: '$.ok', predicate_value: true, max_iters: 2 } });
    const each = llmStep({
      name: 'each',
      system_prompt: 'Do <<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_items: 2 },
    });
    stack.model.script(reply.json({ ok: false }), reply.json({ ok: false }), reply.text('a done'), reply.text('b done'));

    const done = await run([retry, each], { items: ['a', 'b', 'c'] });

    expect(done.status).toBe('completed');
    expect(done.steps[0]).toMatchObject({
      loop: { type: 'repeat_until', iterations: 2, stopped_by: 'max_iters' },
      output: { raw_data: { ok: false } },
    });
    expect(done.steps[1]).toMatchObject({
      loop: { type: 'for_each', iterations: 2, stopped_by: 'max_items' },
      output: { raw_data: ['a done', 'b done'] },
    });
    expect(systemPrompts().slice(2)).toEqual(['Do a', 'Do b']);
  });

  it('loops an agent step too: each iteration is a whole agent conversation under its own row', async () => {
    const agent = agentStep({
      name: 'agent',
      system_prompt: 'Look up <<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    stack.model.script(reply.text('found x'), reply.text('found y'));

    const done = await run([agent], { items: ['x', 'y'] });

    expect(done.status).toBe('completed');
    expect(systemPrompts().map((prompt) => prompt?.split('\n')[0])).toEqual(['Look up x', 'Look up y']);
    expect(done.steps[0]).toMatchObject({ loop: { stopped_by: 'exhausted', iterations: 2 }, output: { raw_data: ['found x', 'found y'] } });
    expect(done.steps[0].iterations.map((it: RunBody) => it.messages.at(-1).content)).toEqual(['found x', 'found y']);
  });

  it('fails the step, naming the problem, when input_path does not hold an array', async () => {
    const each = llmStep({
      name: 'each',
      system_prompt: 'Do <<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>' },
    });
    const done = await run([each], { items: 'not a list' });
    expect(done).toMatchObject({
      status: 'failed',
      steps: [{ status: 'failed', error_message: expect.stringContaining('does not name an array') }],
    });
  });

  it.each([
    ['a for_each without input_path', { type: 'for_each' }, 'INVALID_LOOP', 'steps[0].loop.input_path'],
    ['an input_path that is not a placeholder', { type: 'for_each', input_path: 'items' }, 'INVALID_LOOP', 'steps[0].loop.input_path'],
    [
      'max_iters over 10000',
      { type: 'repeat_until', predicate_path: '$.ok', predicate_value: true, max_iters: 10001 },
      'VALIDATION_FAILED',
      'steps[0].loop.max_iters',
    ],
    [
      'a predicate that is not a JSONPath',
      { type: 'repeat_until', predicate_path: 'ok', predicate_value: true },
      'INVALID_JSON_PATH',
      'steps[0].loop.predicate_path',
    ],
  ])('refuses %s', async (_case, loop, code, field) => {
    const refused = await stack.user.post('/workflows', { name: `bad-${randomUUID().slice(0, 8)}`, steps: [llmStep({ loop })] });
    expect(refused).toMatchObject({ status: 422, body: { code, details: { field } } });
  });

  it(`completes a ${LONG_LOOP}-iteration loop, continuing as new so that every history stays bounded`, async () => {
    stack.model.autoReply((request) => reply.json({ echo: request.body.messages[0].content }));
    const each = llmStep({
      name: 'long',
      system_prompt: '<<item>>',
      loop: { type: 'for_each', input_path: '<<trigger_output.items>>', max_items: 10000 },
    });
    const startedAt = Date.now();

    const done = await run([each], { items: Array.from({ length: LONG_LOOP }, (_, i) => i) }, 900_000);

    const elapsedMs = Date.now() - startedAt;
    console.log(`${LONG_LOOP}-iteration for_each: ${elapsedMs} ms (${(elapsedMs / LONG_LOOP).toFixed(1)} ms an iteration)`);
    expect(done.status).toBe('completed');
    expect(stack.model.requests).toHaveLength(LONG_LOOP);
    const step = done.steps[0];
    expect(step).toMatchObject({
      loop: { type: 'for_each', iterations: LONG_LOOP, stopped_by: 'exhausted' },
      iteration_count: LONG_LOOP,
      iterations_shown: 'first and last 50',
    });
    expect(step.iterations.map((it: RunBody) => it.iteration)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => i),
      ...Array.from({ length: 50 }, (_, i) => LONG_LOOP - 50 + i),
    ]);
    expect(step.output!.raw_data).toHaveLength(LONG_LOOP);
    expect(step.output!.raw_data[LONG_LOOP - 1]).toEqual({ echo: String(LONG_LOOP - 1) });

    // The last execution still carries the run's attributes and memo, so the Web UI finds it like any run.
    const last = await (await stack.temporal()).workflow.getHandle(done.temporal.workflow_id).describe();
    expect(last.searchAttributes).toMatchObject({ StepwiseRunUuid: [done.uuid] });
    expect(last.memo).toMatchObject({ run_uuid: done.uuid });
    // Each execution's history bounded, the loop spread over several.
    const lengths = (await executionHistories(done.temporal.workflow_id)).map((history) => history.events!.length);
    console.log(`executions: ${lengths.length}, history events: ${lengths.join(', ')}`);
    expect(lengths.length).toBeGreaterThanOrEqual(LONG_LOOP / ITERATIONS_PER_EXECUTION);
    expect(Math.max(...lengths)).toBeLessThan(HISTORY_BOUND);
  }, 900_000);
});

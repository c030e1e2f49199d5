// Graph runs end to end: a router choosing its path, parallel branches with one failing, and the guard
// rails, on real Temporal and MySQL with the model fake. Edges on data conditions: large-outputs (on a 5 MiB
// answer) and graph-loops (on a loop's list) e2e specs, the condition check in the medium stop-checker spec.
import { reply, type RecordedRequest } from './support/model-fake';
import { openSse } from './support/sse';
import { useStack, type RunBody, type Stack } from './support/stack';
import { agentStep, llmStep, graphEdge } from './support/factories';

type Step = { uuid: string; name: string };

describe('Graph runs', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const run = (steps: Step[], graph: Record<string, unknown>) => stack.runSteps(steps, { topic: 'prices' }, { fields: { graph } });
  /** The guard_rail_hit event of an ended run, as its event stream gives it. */
  const guardRailHit = async (runUuid: string) => {
    const events = await (await openSse(`${stack.user.baseUrl}/runs/${runUuid}/events`, { key: stack.user.key! })).done;
    return events.find((event) => event.data.type === 'guard_rail_hit')?.data;
  };

  const stepNamed = (run: RunBody, name: string) => run.steps.find((step: RunBody) => step.name === name);
  const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;

  it('lets a router choose its path: writer, back to the router, then END', async () => {
    const router = agentStep({
      name: 'Router',
      system_prompt: 'Route the work on <<trigger_output.topic>>. Last draft: <<step_output.WRITER|none>>',
    });
    const writer = llmStep({ name: 'Writer', system_prompt: 'Write about <<trigger_output.topic>>' });
    router.system_prompt = router.system_prompt.replace('WRITER', writer.uuid);
    stack.model.script(reply.json({ next: 'Writer' }), reply.text('a draft about prices'), reply.json({ next: 'END' }));

    const done = await run([router, writer], {
      entry_node: router.uuid,
      edges: [graphEdge(router, writer, 'Writer'), graphEdge(router, null, 'END'), graphEdge(writer, router)],
    });

    expect(done.status).toBe('completed');
    const [first, , second] = stack.model.requests;
    expect(systemPromptOf(first)).toContain('Last draft: none');
    expect(systemPromptOf(first)).toContain('one of "Writer", "END"');
    expect(first.body.response_format).toBeUndefined(); // agent turns offer tools, the JSON is checked at the end
    // An agent gets earlier outputs as references (get_output reads them): the writer's latest one.
    expect(systemPromptOf(second)).toContain('"summary":"a draft about prices"');
    const routerRow = stepNamed(done, 'Router');
    expect(routerRow).toMatchObject({ status: 'completed', iteration_count: 2, output: { raw_data: { next: 'END' } } });
    expect(routerRow.iterations.map((execution: RunBody) => execution.output.raw_data)).toEqual([{ next: 'Writer' }, { next: 'END' }]);
    expect(stepNamed(done, 'Writer')).toMatchObject({
      status: 'completed',
      iteration_count: 1,
      output: { raw_data: 'a draft about prices' },
    });
  });

  it('sends an invalid choice back for correction, then fails the step naming the choices', async () => {
    const router = llmStep({ name: 'Router', max_correction_attempts: 1 });
    const done = llmStep({ name: 'Done' });
    const graph = { entry_node: router.uuid, edges: [graphEdge(router, done, 'Done'), graphEdge(router, null, 'END')] };
    stack.model.script(reply.json({ next: 'Elsewhere' }), reply.json({ next: 'END' }));
    expect((await run([router, done], graph)).status).toBe('completed');
    expect(stack.model.requests[1].body.messages.at(-1)?.content).toContain('must be one of "Done", "END"');

    stack.model.reset();
    const [stubborn, target] = [llmStep({ name: 'Router', max_correction_attempts: 1 }), llmStep({ name: 'Done' })];
    stack.model.script(reply.json({ next: 'Elsewhere' }), reply.json({ next: 'Nowhere' }));
    const failed = await run([stubborn, target], {
      entry_node: stubborn.uuid,
      edges: [graphEdge(stubborn, target, 'Done'), graphEdge(stubborn, null, 'END')],
    });
    expect(failed).toMatchObject({ status: 'failed', error_message: expect.stringContaining('next must be one of "Done", "END"') });
    expect(stepNamed(failed, 'Router')).toMatchObject({ status: 'failed', iterations: [{ status: 'failed' }] });
    expect(stepNamed(failed, 'Done').status).toBe('skipped');
    expect(stepNamed(failed, 'Done').iterations ?? []).toEqual([]);
  });

  it('runs parallel branches: one fails, the other completes, and the run is partial_success', async () => {
    const start = llmStep({ name: 'start' });
    const good = llmStep({ name: 'good', model: 'good-model', system_prompt: 'Use $previous_output' });
    const bad = llmStep({ name: 'bad', model: 'bad-model', retry_policy: { max_attempts: 1 } });
    const after = llmStep({ name: 'after good', system_prompt: 'Finish $previous_output' });
    stack.model.script(reply.text('started'));
    stack.model.respondWith((request) =>
      request.body.model === 'bad-model' ? reply.error(400) : reply.text(`from ${request.body.model}`),
    );

    const done = await run([start, good, bad, after], {
      entry_node: start.uuid,
      edges: [graphEdge(start, good), graphEdge(start, bad), graphEdge(good, after), graphEdge(bad, after), graphEdge(after, null)],
    });

    expect(done.status).toBe('partial_success');
    expect(done.error_message).toContain('Step "bad" failed');
    expect(stepNamed(done, 'bad')).toMatchObject({
      status: 'failed',
      iterations: [{ status: 'failed', error_message: expect.stringContaining('400') }],
    });
    expect(stepNamed(done, 'good')).toMatchObject({ status: 'completed', output: { raw_data: 'from good-model' } });
    expect(stepNamed(done, 'after good')).toMatchObject({ status: 'completed', iteration_count: 1 });
    const finish = stack.model.requests.find((request) => systemPromptOf(request).startsWith('Finish'));
    expect(systemPromptOf(finish!)).toBe('Finish from good-model');
  });

  it('stops a cycle at max_steps and fails with the guard named', async () => {
    const [ping, pong] = [llmStep({ name: 'ping' }), llmStep({ name: 'pong' })];
    stack.model.respondWith(() => reply.text(`again ${stack.model.requests.length}`)); // a new output each time: the cycle makes progress
    const done = await run([ping, pong], { entry_node: ping.uuid, max_steps: 5, edges: [graphEdge(ping, pong), graphEdge(pong, ping)] });
    expect(done).toMatchObject({ status: 'failed', error_message: expect.stringContaining('Guard max_steps reached') });
    expect(stack.model.requests).toHaveLength(5);
    expect([stepNamed(done, 'ping').iteration_count, stepNamed(done, 'pong').iteration_count]).toEqual([3, 2]);
    expect(await guardRailHit(done.uuid)).toMatchObject({ rail: 'max_steps', message: expect.stringContaining('Guard max_steps reached') });
  });

  it('fails a cycle that goes round without new input, naming the repeated_input guard, long before max_steps', async () => {
    const [ping, pong] = [llmStep({ name: 'ping' }), llmStep({ name: 'pong' })];
    stack.model.respondWith(() => reply.text('the same answer'));
    const done = await run([ping, pong], { entry_node: ping.uuid, max_steps: 50, edges: [graphEdge(ping, pong), graphEdge(pong, ping)] });
    expect(done).toMatchObject({ status: 'failed', error_message: expect.stringContaining('Guard repeated_input') });
    expect(done.error_message).toContain('"pong"'); // pong would answer ping's unchanged output a second time
    expect(stack.model.requests).toHaveLength(3);
    expect([stepNamed(done, 'ping').iteration_count, stepNamed(done, 'pong').iteration_count]).toEqual([2, 1]);
    // The run's events name the rail and the step the engine refused (recorded as data with the run's end).
    expect(await guardRailHit(done.uuid)).toMatchObject({ rail: 'repeated_input', step_name: 'pong', step_uuid: pong.uuid });
  });

  it('resumes from the failed node of a graph, the completed steps carried over', async () => {
    const start = llmStep({ name: 'start' });
    const [good, bad] = [
      llmStep({ name: 'good' }),
      llmStep({ name: 'bad', model: 'bad-model', system_prompt: 'Fix $previous_output', retry_policy: { max_attempts: 1 } }),
    ];
    const after = llmStep({ name: 'after bad', system_prompt: 'Finish $previous_output with <<step_output.START>>' });
    after.system_prompt = after.system_prompt.replace('START', start.uuid);
    stack.model.script(reply.text('started'));
    stack.model.respondWith((request) =>
      request.body.model === 'bad-model' ? reply.error(400) : reply.text(`from ${request.body.model}`),
    );
    const parent = await run([start, good, bad, after], {
      entry_node: start.uuid,
      edges: [graphEdge(start, good), graphEdge(start, bad), graphEdge(bad, after)],
    });
    expect(parent.status).toBe('partial_success');

    expect((await stack.user.call('PATCH', `/steps/${bad.uuid}`, { model: 'fixed-model' })).status).toBe(200);
    stack.model.reset();
    stack.model.respondWith((request) => reply.text(`from ${request.body.model}`));
    const resumed = await stack.user.post(`/runs/${parent.uuid}/resume`, { definition: 'current' });
    expect(resumed.body).toMatchObject({ parent_run_uuid: parent.uuid, resumed_from_step_uuid: bad.uuid });
    const child = await stack.waitForRun(resumed.body.uuid);

    expect(child.status).toBe('completed');
    expect(stack.model.requests.map((request) => request.body.model)).toEqual(['fixed-model', 'test-model']);
    // $previous_output is the step with an edge into the resumed one (start), not the last carried one (good).
    expect(systemPromptOf(stack.model.requests[0])).toBe('Fix started');
    expect(systemPromptOf(stack.model.requests[1])).toBe('Finish from fixed-model with started');
    expect(stepNamed(child, 'start')).toMatchObject({ status: 'completed', carried_from_run_uuid: parent.uuid });
    expect(stepNamed(child, 'good')).toMatchObject({ status: 'completed', carried_from_run_uuid: parent.uuid });
    expect(stepNamed(child, 'bad')).toMatchObject({
      status: 'completed',
      carried_from_run_uuid: null,
      output: { raw_data: 'from fixed-model' },
    });
  });
});

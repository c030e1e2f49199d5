// Sub-workflows (#29), end to end on one stack: a parent run calls a child workflow as a run of its own,
// pinned to the child's definition at the parent's start, and reads its output; a child waiting for a
// person makes the parent wait; cancelling the parent cancels the child; a call back into the caller is
// refused when the workflow is saved; an agent calls a workflow as a tool, each call a child run (in a graph,
// run by the tool executor its calls are handed to).
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { agentStep, graphEdge, llmStep, toolExecutorStep } from './support/factories';

describe('Sub-workflows', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const CITY_SCHEMA = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };
  const subWorkflow = (workflowUuid: string, input: unknown, fields: Record<string, unknown> = {}) => ({
    uuid: randomUUID(),
    type: 'sub_workflow',
    name: `call-${randomUUID().slice(0, 6)}`,
    workflow_uuid: workflowUuid,
    input,
    ...fields,
  });
  const prompts = () => stack.model.requests.map((request) => request.body.messages[0].content ?? '');
  const get = async (runUuid: string): Promise<RunBody> => (await stack.user.get(`/runs/${runUuid}`)).body as RunBody;

  it('runs the child as a run of its own, pinned at the parent’s start, and the parent reads its output', async () => {
    const childStep = llmStep({ name: 'forecast', system_prompt: 'Forecast for <<trigger_output.city>>' });
    const child = await stack.createWorkflow([childStep], { input_schema: CITY_SCHEMA });
    const slow = llmStep({ name: 'slow', system_prompt: 'Warm up' });
    const call = subWorkflow(child.uuid, { city: '<<trigger_output.town>>' });
    const after = llmStep({ name: 'after', system_prompt: `Parent read <<step_output.${call.uuid}.sky>>` });
    const parent = await stack.createWorkflow([slow, call, after]);
    stack.model.respondWith((request) => {
      const prompt = request.body.messages[0].content ?? '';
      if (prompt === 'Warm up') return reply.text('warm', { delayMs: 1500 });
      if (prompt.startsWith('Forecast') || prompt.startsWith('Edited')) return reply.json({ sky: `clear over ${prompt.split(' ').pop()}` });
      return reply.text('done');
    });

    const started = await stack.startRun(parent.uuid, { town: 'Lyon' });
    // Edited while the parent runs its first step: the child run still takes the definition pinned at the start.
    const patched = await stack.user.patch(`/steps/${childStep.uuid}`, { system_prompt: 'Edited <<trigger_output.city>>' });
    expect(patched.status).toBe(200);
    const done = await stack.waitForRun(started.uuid);

    expect(done.status).toBe('completed');
    expect(prompts()).toEqual(['Warm up', 'Forecast for Lyon', 'Parent read clear over Lyon']);
    const body = await get(started.uuid);
    expect(body.definition.sub_workflows[child.uuid].steps[0].system_prompt).toBe('Forecast for <<trigger_output.city>>');
    expect(body.children).toEqual([
      expect.objectContaining({ workflow_uuid: child.uuid, status: 'completed', parent_step_uuid: call.uuid }),
    ]);
    const childRun = await get(body.children[0].uuid);
    expect(childRun).toMatchObject({ parent_run_uuid: started.uuid, parent_step_uuid: call.uuid, status: 'completed' });
    expect(childRun.trigger_output.raw_data).toEqual({ city: 'Lyon' });
    // The step's output is the child's, referenced rather than copied.
    const callStep = body.steps.find((step: RunBody) => step.name === call.name);
    expect(callStep.output.uuid).toBe(childRun.steps[0].output.uuid);
  });

  it('a child waiting for a person makes the parent wait; the answer finishes both, and a cancel reaches the child', async () => {
    const question = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Ship it?' };
    const child = await stack.createWorkflow([question]);
    const call = subWorkflow(child.uuid, { asked: true });
    const parent = await stack.createWorkflow([call]);

    const first = await stack.startRun(parent.uuid, {});
    const waiting = await stack.waitForRun(first.uuid, (run) => run.status === 'awaiting_input');
    const childUuid = ((await get(first.uuid)).children as RunBody[])[0].uuid;
    expect((await get(childUuid)).status).toBe('awaiting_input');
    expect(waiting.steps[0].status).toBe('awaiting_input');
    const answered = await stack.user.post(`/runs/${childUuid}/steps/${question.uuid}/input`, { input: { ship: true } });
    expect(answered.status).toBe(200);
    const done = await stack.waitForRun(first.uuid);
    expect(done.status).toBe('completed');
    expect(done.steps[0].output!.raw_data).toEqual({ ship: true });

    const second = await stack.startRun(parent.uuid, {});
    await stack.waitForRun(second.uuid, (run) => run.status === 'awaiting_input');
    const secondChild = ((await get(second.uuid)).children as RunBody[])[0].uuid;
    expect((await stack.user.post(`/runs/${second.uuid}/cancel`, {})).status).toBeLessThan(300);
    expect((await stack.waitForRun(second.uuid)).status).toBe('cancelled');
    expect((await stack.waitForRun(secondChild)).status).toBe('cancelled');
  });

  it('refuses a call back into the caller (422 SUB_WORKFLOW_CYCLE), an input the child’s schema refuses, and a stranger’s workflow', async () => {
    const b = await stack.createWorkflow([llmStep()], { input_schema: CITY_SCHEMA });
    const a = await stack.createWorkflow([subWorkflow(b.uuid, { city: 'Lyon' })]);

    const back = await stack.user.post(`/workflows/${b.uuid}/steps`, subWorkflow(a.uuid, {}));

    expect(back.status).toBe(422);
    expect(back.body).toMatchObject({ code: 'SUB_WORKFLOW_CYCLE' });
    const badInput = await stack.user.post('/workflows', {
      name: `bad-${randomUUID().slice(0, 6)}`,
      steps: [subWorkflow(b.uuid, { town: 'Lyon' })],
    });
    expect(badInput.status).toBe(422);
    expect(badInput.body).toMatchObject({ code: 'INVALID_SUB_WORKFLOW', details: { field: 'steps[0].input' } });
    const unknown = await stack.user.post('/workflows', {
      name: `bad-${randomUUID().slice(0, 6)}`,
      steps: [subWorkflow(randomUUID(), {})],
    });
    expect(unknown.body).toMatchObject({ code: 'INVALID_SUB_WORKFLOW', details: { field: 'steps[0].workflow_uuid' } });
  });

  it('a resume of the parent after the call carries the child’s output instead of running the child again', async () => {
    const child = await stack.createWorkflow([llmStep({ name: 'inner', system_prompt: 'Inner work' })]);
    const call = subWorkflow(child.uuid, {});
    const after = llmStep({ name: 'after', system_prompt: `Use <<step_output.${call.uuid}>>`, retry_policy: { max_attempts: 1 } });
    const parent = await stack.createWorkflow([call, after]);
    stack.model.script(reply.text('inner answer'), reply.error(400, { message: 'bad request' }), reply.text('used'));

    const failed = await stack.waitForRun((await stack.startRun(parent.uuid, {})).uuid);
    expect(failed.status).toBe('partial_success');
    const resumed = await stack.user.post(`/runs/${failed.uuid}/resume`, { from_step_uuid: after.uuid });
    expect(resumed.status).toBe(201);
    const done = await stack.waitForRun(resumed.body.uuid);

    expect(done.status).toBe('completed');
    expect(prompts()).toEqual(['Inner work', 'Use inner answer', 'Use inner answer']);
    expect(done.steps[0]).toMatchObject({ status: 'completed', carried_from_run_uuid: failed.uuid });
    expect((await get(done.uuid)).children).toEqual([]);
    expect((await get(failed.uuid)).children).toHaveLength(1);
  });

  it('fans out over child runs: a for_each sub_workflow step, one child per item, outputs in item order', async () => {
    const child = await stack.createWorkflow([llmStep({ name: 'forecast', system_prompt: 'Forecast for <<trigger_output.city>>' })], {
      input_schema: CITY_SCHEMA,
    });
    const each = subWorkflow(
      child.uuid,
      { city: '<<item>>' },
      { loop: { type: 'for_each', input_path: '<<trigger_output.cities>>', max_concurrency: 3 } },
    );
    stack.model.respondWith((request) => {
      const city = (request.body.messages[0].content ?? '').split(' ').pop();
      return reply.json({ sky: `clear over ${city}` }, { delayMs: city === 'Lyon' ? 300 : 0 });
    });

    const done = await stack.runSteps([each], { cities: ['Lyon', 'Oslo', 'Rome', 'Kyiv'] });

    expect(done.status).toBe('completed');
    expect(done.steps[0].output!.raw_data).toEqual(['Lyon', 'Oslo', 'Rome', 'Kyiv'].map((city) => ({ sky: `clear over ${city}` })));
    const children = (await get(done.uuid)).children as RunBody[];
    expect(children).toHaveLength(4);
    expect(children.every((run) => run.status === 'completed' && run.parent_step_uuid === each.uuid)).toBe(true);
  });

  it('an agent calls a workflow as a tool twice: each call a child run, its output the answer, audited with the child’s uuid', async () => {
    const child = await stack.createWorkflow([llmStep({ name: 'forecast', system_prompt: 'Forecast for <<trigger_output.city>>' })], {
      name: `Forecast city ${randomUUID().slice(0, 6)}`,
      description: 'The sky over a city',
      input_schema: CITY_SCHEMA,
    });
    const agent = agentStep({ tools: [`workflow:${child.uuid}`] });
    const parent = await stack.createWorkflow([agent]);
    type Offered = { function: { name: string; description: string; parameters: unknown } };
    const offeredOf = (body: { tools?: unknown }) =>
      (body.tools as Offered[]).find((tool) => tool.function.name.startsWith('Forecast_city'))!;
    const toolAnswers = (body: { messages: { role: string; content?: string | null }[] }) =>
      body.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content ?? 'null'));
    stack.model.respondWith((request) => {
      const prompt = request.body.messages[0].content ?? '';
      if (prompt.startsWith('Forecast')) return reply.json({ sky: `clear over ${prompt.split(' ').pop()}` });
      const tool = offeredOf(request.body).function.name;
      const answered = toolAnswers(request.body).length;
      if (answered < 2) return reply.toolCalls([{ name: tool, arguments: { city: answered ? 'Oslo' : 'Lyon' } }]);
      return reply.json({ done: true });
    });

    const done = await stack.waitForRun((await stack.startRun(parent.uuid, {})).uuid);

    expect(done.status).toBe('completed');
    const offered = offeredOf(stack.model.requests[0].body);
    expect(offered.function).toMatchObject({ description: 'The sky over a city', parameters: CITY_SCHEMA });
    expect(offered.function.name).toMatch(/^Forecast_city_[a-zA-Z0-9_-]+$/);
    const children = (await get(done.uuid)).children as RunBody[];
    expect(children.map((run) => [run.status, run.parent_step_uuid, run.workflow_uuid])).toEqual([
      ['completed', agent.uuid, child.uuid],
      ['completed', agent.uuid, child.uuid],
    ]);
    const body = await get(done.uuid);
    const calls = body.steps[0].tool_calls as RunBody[];
    const byCity = (city: string) => calls.find((call) => call.input.city === city)!;
    for (const city of ['Lyon', 'Oslo']) {
      const childRun = await get(byCity(city).output.run_uuid);
      expect(childRun).toMatchObject({ parent_run_uuid: done.uuid, status: 'completed' });
      expect(byCity(city)).toMatchObject({
        tool_name: `workflow:${child.uuid}`,
        status: 'completed',
        output: { run_uuid: childRun.uuid, output: { sky: `clear over ${city}` } },
      });
    }
    expect(calls).toHaveLength(2);
    expect(toolAnswers(stack.model.requests.at(-1)!.body)).toEqual(calls.map((call) => call.output));
    // A call back into the caller through a workflow tool is a cycle, refused at save.
    const back = await stack.user.post(`/workflows/${child.uuid}/steps`, agentStep({ tools: [`workflow:${parent.uuid}`] }));
    expect(back.status).toBe(422);
    expect(back.body).toMatchObject({ code: 'SUB_WORKFLOW_CYCLE' });
  });

  it('in a graph, the tool executor an agent hands its calls to runs a workflow tool as a child run, and the agent uses its output', async () => {
    const child = await stack.createWorkflow([llmStep({ name: 'forecast', system_prompt: 'Forecast for <<trigger_output.city>>' })], {
      name: `Forecast city ${randomUUID().slice(0, 6)}`,
      input_schema: CITY_SCHEMA,
    });
    const agent = agentStep({ name: 'Planner', system_prompt: 'Plan a trip', tools: [`workflow:${child.uuid}`] });
    const executor = toolExecutorStep();
    const graph = { entry_node: agent.uuid, edges: [graphEdge(agent, executor, 'tool_executor')] };
    stack.model.respondWith((request) => {
      const prompt = request.body.messages[0].content ?? '';
      if (prompt.startsWith('Forecast')) return reply.json({ sky: `clear over ${prompt.split(' ').pop()}` });
      const answer = request.body.messages.find((message) => message.role === 'tool');
      if (!answer) {
        const tool = (request.body.tools as { function: { name: string } }[]).find((offered) =>
          offered.function.name.startsWith('Forecast_city'),
        )!;
        return reply.toolCalls([{ name: tool.function.name, arguments: { city: 'Lyon' } }]);
      }
      return reply.json({ plan: `go, it is ${JSON.parse(answer.content ?? 'null').output.sky}` });
    });

    const done = await stack.runSteps([agent, executor], {}, { fields: { graph } });

    expect(done.status).toBe('completed');
    const body = await get(done.uuid);
    expect(body.children).toEqual([
      expect.objectContaining({ workflow_uuid: child.uuid, status: 'completed', parent_step_uuid: executor.uuid }),
    ]);
    const childRun = body.children[0].uuid;
    const executed = body.steps.find((step: RunBody) => step.name === executor.name);
    expect(executed.iterations[0].tool_calls).toEqual([
      expect.objectContaining({
        tool_name: `workflow:${child.uuid}`,
        status: 'completed',
        output: { run_uuid: childRun, output: { sky: 'clear over Lyon' } },
      }),
    ]);
    const planner = body.steps.find((step: RunBody) => step.name === agent.name);
    expect(planner.output.raw_data).toEqual({ plan: 'go, it is clear over Lyon' });
  });
});

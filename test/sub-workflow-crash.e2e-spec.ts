// A worker killed with SIGKILL while a sub-workflow's child run is in the middle of an agent's tool call: a
// new worker picks both runs up; the child's completed model turns and tool calls are not made again, the
// parent does not start a second child, and both complete. The same when the child is an agent's call of a
// workflow tool: one child for the call, and the call audited once, completed with the child's output.
import { randomUUID } from 'node:crypto';
import { agentStep } from './support/factories';
import { reply } from './support/model-fake';
import { useWorkerCrash } from './support/worker-crash';

describe('A worker crash while a sub-workflow runs', () => {
  const crash = useWorkerCrash();

  it('completes parent and child, each completed call of the child made once', async () => {
    const { api, model, tools } = crash;
    const user = await api.newUser();
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', { name, description: 'look up n', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
    const child = (await user.post('/workflows', { name: 'child', steps: [agentStep({ name: 'looker', tools: [name] })] })).body;
    const call = { uuid: randomUUID(), type: 'sub_workflow', name: 'call', workflow_uuid: child.uuid, input: { go: true } };
    const parent = (await user.post('/workflows', { name: 'parent', steps: [call] })).body;
    model.script(...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name, arguments: { n } }])), reply.json({ total: 100 }));

    await crash.startWorker();
    const run = (await user.post(`/workflows/${parent.uuid}/runs`, { trigger_output: {} })).body;
    await crash.restartAfterCrash();
    const body = await crash.runEnd(user, run.uuid);

    expect(body.status).toBe('completed');
    expect(body.steps[0].output.raw_data).toEqual({ total: 100 });
    expect(body.children).toHaveLength(1);
    const childRun = (await user.get(`/runs/${body.children[0].uuid}`)).body;
    expect(childRun).toMatchObject({ status: 'completed', parent_run_uuid: run.uuid, parent_step_uuid: call.uuid });
    for (const n of [1, 2, 3, 4])
      expect(tools.calls.filter((made) => (made.args as { n: number }).n === n && made.completed)).toHaveLength(1);
    expect(model.requests).toHaveLength(5); // no model turn of the child paid twice
    model.assertDone();
  });

  it('a workflow tool’s child run in flight: one child for the call, the parent completes, the call audited once', async () => {
    const { api, model, tools } = crash;
    const user = await api.newUser();
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', { name, description: 'look up n', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
    const child = (await user.post('/workflows', { name: 'Count up', steps: [agentStep({ name: 'looker', tools: [name] })] })).body;
    const caller = agentStep({ name: 'caller', tools: [`workflow:${child.uuid}`] });
    const parent = (await user.post('/workflows', { name: 'tool parent', steps: [caller] })).body;
    model.script(
      reply.toolCalls([{ name: 'Count_up', arguments: { go: true } }]),
      ...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name, arguments: { n } }])),
      reply.json({ total: 100 }),
      reply.json({ answer: 'the total is 100' }),
    );

    await crash.startWorker();
    const run = (await user.post(`/workflows/${parent.uuid}/runs`, { trigger_output: {} })).body;
    await crash.restartAfterCrash();
    const body = await crash.runEnd(user, run.uuid);

    expect(body.status).toBe('completed');
    expect(body.steps[0].output.raw_data).toEqual({ answer: 'the total is 100' });
    expect(body.children).toHaveLength(1);
    const childRun = (await user.get(`/runs/${body.children[0].uuid}`)).body;
    expect(childRun).toMatchObject({ status: 'completed', parent_run_uuid: run.uuid, parent_step_uuid: caller.uuid });
    expect(body.steps[0].tool_calls).toEqual([
      expect.objectContaining({
        tool_name: `workflow:${child.uuid}`,
        status: 'completed',
        output: { run_uuid: childRun.uuid, output: { total: 100 } },
      }),
    ]);
    model.assertDone();
  });
});

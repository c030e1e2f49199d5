// A worker killed with SIGKILL in the middle of an agent's tool call, a local activity: a new worker picks
// the run up once its workflow task times out and runs the agent's activities since its last recorded task
// again; completed model turns and tool calls are found in the transcript, not repeated, and the run completes.
// The same for a chain's LLM steps running in one local activity: the steps it completed are found on their rows.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { auditOf, expectEachStepOnce } from './support/run-audit';
import { fetchRunHistory, queuedActivities } from './support/temporal-history';
import { useWorkerCrash } from './support/worker-crash';

describe('A worker crash during an agent step or a chain step', () => {
  const crash = useWorkerCrash();

  it('completes the run and the tool server sees each completed call exactly once', async () => {
    const { api, model, tools } = crash;
    const user = await api.newUser();
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', { name, description: 'look up n', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
    const agent = agentStep({ name: 'looker', tools: [name] });
    const wf = (await user.post('/workflows', { name: 'crash', steps: [agent] })).body;
    const calls = [1, 2, 3, 4].map((n) => ({ name, arguments: { n } }));
    model.script(...calls.map((call) => reply.toolCalls([call])), reply.json({ total: 100 }));

    await crash.startWorker();
    const run = (await user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body;
    await crash.restartAfterCrash();
    const body = await crash.runEnd(user, run.uuid);

    expect(body.status).toBe('completed');
    expect(body.steps[0].output.raw_data).toEqual({ total: 100 });
    for (const n of [1, 2, 3, 4]) {
      const completed = tools.calls.filter((call) => (call.args as { n: number }).n === n && call.completed);
      expect(completed).toHaveLength(1);
    }
    expect(tools.countOf('lookup', { n: 3 })).toBe(2); // the interrupted call, then its retry
    expect(model.requests).toHaveLength(5); // no model turn ran twice
    model.assertDone();
    type AuditedCall = { input: { n: number }; attempt: number; status: string; error_message: string | null };
    const audited: AuditedCall[] = body.steps[0].tool_calls;
    expect(audited.filter((call) => call.status === 'completed').map((call) => call.input.n)).toEqual([1, 2, 3, 4]);
    // The attempt that died with the worker is audited too, closed as lost when its retry started.
    expect(audited.filter((call) => call.input.n === 3).map((call) => [call.attempt, call.status, call.error_message])).toEqual([
      [1, 'failed', expect.stringMatching(/^Lost: the worker stopped/)],
      [2, 'completed', null],
    ]);
    // And in MySQL itself: no audit row lost, none doubled.
    const audit = await auditOf(api.app.get(DataSource), run.uuid);
    expectEachStepOnce(audit);
    expect(audit.model_calls.map((call) => [call.turn, call.status])).toEqual([1, 2, 3, 4, 5].map((turn) => [turn, 'completed']));
    expect(audit.tool_calls.filter((call) => call.status === 'completed')).toHaveLength(4);
    // The agent's start, turns, tool calls and completion were local activities: none went through the task queue.
    expect(queuedActivities(await fetchRunHistory(body.temporal.workflow_id))).toEqual([]);
  });

  it('completes a chain whose steps ran in one activity: the steps it completed are found, the one in flight asked again', async () => {
    const { api, model } = crash;
    const user = await api.newUser();
    const steps = ['one', 'two', 'three'].map((name) => llmStep({ name }));
    const wf = (await user.post('/workflows', { name: 'crash-chain', steps })).body;
    model.script(reply.text('first'), reply.text('never heard', { delayMs: 60_000 }), reply.text('second'), reply.text('third'));

    await crash.startWorker();
    const run = (await user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} })).body;
    // Step two's call is in flight in the activity that ran step one.
    await model.waitForRequests(2);
    await crash.killAndRestart();
    const body = await crash.runEnd(user, run.uuid);

    expect(body.status).toBe('completed');
    expect(body.steps.map((step: { output: { raw_data: unknown } }) => step.output.raw_data)).toEqual(['first', 'second', 'third']);
    expect(model.requests).toHaveLength(4); // step one was not asked again
    const audit = await auditOf(api.app.get(DataSource), run.uuid);
    expectEachStepOnce(audit);
    // Step two's attempt that died with the worker is audited, closed as lost when its retry started.
    expect(audit.model_calls.map((call) => [call.attempt, call.status])).toEqual([
      [1, 'completed'],
      [1, 'failed'],
      [2, 'completed'],
      [1, 'completed'],
    ]);
    expect(queuedActivities(await fetchRunHistory(body.temporal.workflow_id))).toEqual([]);
  });
});

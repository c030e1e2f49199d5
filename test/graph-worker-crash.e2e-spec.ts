// A worker killed with SIGKILL in the middle of a graph run, while a tool executor's call is in flight: a
// new worker picks the run up, the completed executions, model turns and tool calls are not repeated, the
// call that died is retried, and the agent's conversation goes on to its answer.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { agentStep, graphEdge, llmStep, toolExecutorStep } from './support/factories';
import { reply, type RecordedRequest } from './support/model-fake';
import { auditOf } from './support/run-audit';
import type { RunBody } from './support/stack';
import { useWorkerCrash } from './support/worker-crash';

describe('A worker crash during a graph run', () => {
  const crash = useWorkerCrash();

  const systemPromptOf = (request: RecordedRequest) => request.body.messages[0].content as string;
  const stepNamed = (run: RunBody, name: string): RunBody => run.steps.find((step: RunBody) => step.name === name);

  it('completes the run, each execution, model turn and tool call done once, the lost call retried', async () => {
    const { api, model, tools } = crash;
    const user = await api.newUser();
    const name = `lookup_${randomUUID().slice(0, 6)}`;
    await user.post('/tools', { name, description: 'look up n', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
    const plan = llmStep({ name: 'plan', system_prompt: 'Plan the work on <<trigger_output.topic>>' });
    const looker = agentStep({ name: 'Worker', system_prompt: 'Look up the numbers', tools: [name] });
    const notes = llmStep({ name: 'notes', system_prompt: 'Take notes on $previous_output' });
    const executor = toolExecutorStep();
    // No edge leaves the tool executor: each answer goes back to the Worker's conversation.
    const graph = {
      entry_node: plan.uuid,
      edges: [graphEdge(plan, looker), graphEdge(plan, notes), graphEdge(looker, executor, 'tool_executor')],
    };
    const wf = await user.post('/workflows', { name: 'graph crash', steps: [plan, looker, notes, executor], graph });
    expect(wf.status).toBe(201);

    // The branches run in parallel: answer by who asks, the Worker by how many tool answers it has seen.
    model.respondWith((request) => {
      const prompt = systemPromptOf(request);
      if (prompt.startsWith('Plan')) return reply.text('look up four numbers and take notes');
      if (prompt.startsWith('Take notes')) return reply.text('notes taken');
      const answered = request.body.messages.filter((message) => message.role === 'tool').length;
      return answered < 4 ? reply.toolCalls([{ name, arguments: { n: answered + 1 } }]) : reply.json({ total: 100 });
    });

    await crash.startWorker();
    const run = (await user.post(`/workflows/${wf.body.uuid}/runs`, { trigger_output: { topic: 'numbers' } })).body;
    await crash.restartAfterCrash();
    const body = await crash.runEnd(user, run.uuid);

    expect(body.status).toBe('completed');
    expect(stepNamed(body, 'Worker').output.raw_data).toEqual({ total: 100 });
    for (const n of [1, 2, 3, 4]) {
      const completed = tools.calls.filter((call) => (call.args as { n: number }).n === n && call.completed);
      expect(completed).toHaveLength(1);
    }
    expect(tools.countOf('lookup', { n: 3 })).toBe(2); // the interrupted call, then its retry

    // No model turn ran twice: one request per turn of each step.
    const requestsOf = (prefix: string) => model.requests.filter((request) => systemPromptOf(request).startsWith(prefix));
    expect([requestsOf('Plan').length, requestsOf('Take notes').length, requestsOf('Look up').length]).toEqual([1, 1, 5]);
    expect(model.requests).toHaveLength(7);
    model.assertDone();
    // The Worker's conversation went on across the crash: its last turn saw each answer once, in order.
    const toolAnswers = (request: RecordedRequest) =>
      request.body.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(requestsOf('Look up').map((request) => toolAnswers(request).length)).toEqual([0, 1, 2, 3, 4]);
    expect(toolAnswers(requestsOf('Look up')[4])).toEqual([1, 2, 3, 4].map((n) => JSON.stringify({ n, value: n * 10 })));

    // The path of executions: the Worker and its tool executor take turns four times, then the Worker answers.
    const executions: RunBody[] = body.steps.flatMap((step: RunBody) => step.iterations);
    const path = executions.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at)).map((execution) => execution.name);
    expect(path[0]).toBe('plan');
    expect(path.filter((step) => step === 'notes')).toHaveLength(1);
    expect(path.filter((step) => step !== 'plan' && step !== 'notes')).toEqual([
      ...Array(4).fill(['Worker', 'tool_executor']).flat(),
      'Worker',
    ]);
    expect(executions.map((execution) => execution.status)).toEqual(executions.map(() => 'completed'));

    type AuditedCall = { input: { n: number }; attempt: number; status: string; error_message: string | null };
    const audited: AuditedCall[] = stepNamed(body, 'tool_executor').iterations.flatMap((execution: RunBody) => execution.tool_calls);
    expect(audited.filter((call) => call.status === 'completed').map((call) => call.input.n)).toEqual([1, 2, 3, 4]);
    // The attempt that died with the worker is audited too, closed as lost when its retry started.
    expect(audited.filter((call) => call.input.n === 3).map((call) => [call.attempt, call.status, call.error_message])).toEqual([
      [1, 'failed', expect.stringMatching(/^Lost: the worker stopped/)],
      [2, 'completed', null],
    ]);

    // And in MySQL itself: no audit row lost, none doubled.
    const audit = await auditOf(api.app.get(DataSource), run.uuid);
    expect(audit.instances.map((instance) => instance.status)).toEqual(audit.instances.map(() => 'completed'));
    const executionRows = executions.map((execution) => execution.uuid);
    const stepOutputs = audit.outputs.filter((output) => output.step_instance_uuid !== null);
    // One stored output per execution (a graph step's own row points at its latest execution's).
    expect(stepOutputs.map((output) => output.step_instance_uuid).sort()).toEqual([...executionRows].sort());
    const completedTurns = audit.model_calls.filter((call) => call.status === 'completed');
    expect(new Set(completedTurns.map((call) => `${call.step_instance_uuid} turn ${call.turn}`)).size).toBe(completedTurns.length);
    expect(completedTurns).toHaveLength(7);
    expect(audit.model_calls.filter((call) => call.status !== 'completed')).toEqual([]);
    const modelSteps = executions.filter((execution) => execution.name !== 'tool_executor');
    for (const execution of modelSteps) expect(completedTurns.filter((call) => call.step_instance_uuid === execution.uuid)).toHaveLength(1);
    const completedTools = audit.tool_calls.filter((call) => call.status === 'completed');
    expect(new Set(completedTools.map((call) => call.tool_call_id)).size).toBe(4);
    expect(completedTools).toHaveLength(4);
    expect(audit.tool_calls.filter((call) => call.status === 'failed')).toHaveLength(1);
  });
});

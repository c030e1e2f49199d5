// Conversational graph runs end to end: a run stays open between user messages, each a turn
// from the entry node to END answered with the reply; the built-in end tool closes it, so does the idle
// timeout; a message while a turn runs or after the end is refused. Real Temporal, MySQL and HTTP.
import { randomUUID } from 'node:crypto';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';
import { agentStep, graphEdge } from './support/factories';
import { TWO_N_CHAT_AGENTS, twoNChat } from './support/agentic-2nchat';

describe('Conversations', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const waiting = (run: RunBody) => run.status === 'awaiting_input';
  const send = (run: RunBody, content: string, wait?: number) =>
    stack.user.post(`/runs/${run.uuid}/messages${wait === undefined ? '' : `?wait_seconds=${wait}`}`, { content });
  /** A router agent sending each message to a worker agent, which answers and ends the turn. */
  async function openConversation(graphFields: Record<string, unknown> = {}) {
    const router = agentStep({ name: 'Router', system_prompt: 'Route the user to the right worker.' });
    const worker = agentStep({ name: 'Worker', system_prompt: 'Answer the user.' });
    const graph = {
      entry_node: router.uuid,
      is_conversational: true,
      edges: [graphEdge(router, worker, 'Worker'), graphEdge(router, null, 'END'), graphEdge(worker, null)],
      ...graphFields,
    };
    const workflow = await stack.createWorkflow([router, worker], { graph });
    const started = await stack.user.post(`/workflows/${workflow.uuid}/runs`, {});
    expect(started.status).toBe(201);
    return stack.waitForRun(started.body.uuid, waiting);
  }
  const pathOf = (run: RunBody) =>
    run.steps
      .flatMap((step: RunBody) => step.iterations.map((execution: RunBody) => [execution.started_at, step.name] as const))
      .sort()
      .map(([, name]: readonly [string, string]) => name);
  const userMessageOf = (index: number) => stack.model.requests[index].body.messages[1].content as string;

  it('holds a conversation over three messages, answers each with its reply, and closes when the worker calls end', async () => {
    const run = await openConversation();
    expect(run.steps.map((step: RunBody) => step.status)).toEqual(['pending', 'pending']);

    stack.model.script(reply.json({ next: 'Worker' }), reply.text('Hello! How can I help?'));
    const first = await send(run, 'hi there');
    expect(first).toMatchObject({ status: 200, body: { turn: 1, reply: 'Hello! How can I help?', status: 'awaiting_input' } });
    // The user's message is the entry step's user message; every agent of a conversation is offered end.
    expect(userMessageOf(0)).toContain('User: hi there');
    expect(stack.model.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['get_output', 'end']);

    stack.model.script(reply.json({ next: 'Worker' }), reply.text('Prices rose 3%.', { delayMs: 1500 }));
    const second = await send(run, 'what about prices?', 0);
    expect(second).toMatchObject({ status: 202, body: { run_uuid: run.uuid, turn_id: expect.any(String), status: 'running' } });
    expect(await send(run, 'are you there?')).toMatchObject({ status: 409, body: { code: 'CONVERSATION_BUSY' } });
    const answered = await stack.waitForRun(run.uuid, (body) => waiting(body) && body.messages?.length === 4);
    expect(answered.messages!.map((message: RunBody) => [message.turn, message.role, message.content])).toEqual([
      [1, 'user', 'hi there'],
      [1, 'assistant', 'Hello! How can I help?'],
      [2, 'user', 'what about prices?'],
      [2, 'assistant', 'Prices rose 3%.'],
    ]);
    // Each agent sees the conversation so far, the latest message last.
    expect(userMessageOf(3)).toContain('User: hi there\nAssistant: Hello! How can I help?\nUser: what about prices?');

    stack.model.script(
      reply.json({ next: 'Worker' }),
      reply.toolCalls([{ name: 'end', arguments: { reason: 'the user is done' } }]),
      reply.text('Goodbye!'),
    );
    const third = await send(run, 'thanks, bye');
    expect(third).toMatchObject({ status: 200, body: { turn: 3, reply: 'Goodbye!', status: 'completed' } });
    const done = await stack.waitForRun(run.uuid);
    expect(done).toMatchObject({ status: 'completed', error_message: null });
    expect(done.messages).toHaveLength(6);
    expect(pathOf(done)).toEqual(['Router', 'Worker', 'Router', 'Worker', 'Router', 'Worker']);
    // The end call is audited like any tool call, on the worker's third execution.
    const endCall = done.steps[1].iterations[2].tool_calls.find((call: RunBody) => call.tool_name === 'end');
    expect(endCall).toMatchObject({ status: 'completed', input: { reason: 'the user is done' } });

    expect(await send(run, 'one more thing')).toMatchObject({ status: 409, body: { code: 'RUN_NOT_ACTIVE' } });

    // The specs' API continues a conversation as new every 2 turns: the third turn ran in a second execution.
    const client = await stack.temporal();
    const last = await client.workflow.getHandle(done.temporal.workflow_id).describe();
    const history = await client.workflow.getHandle(done.temporal.workflow_id, last.runId).fetchHistory();
    expect(history.events![0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
  });

  it('closes a conversation nobody writes to after idle_timeout_seconds, and cancels one on request', async () => {
    const idle = await openConversation({ idle_timeout_seconds: 1 });
    expect(await stack.waitForRun(idle.uuid)).toMatchObject({ status: 'completed', error_message: 'Idle timeout: no message within 1 s' });

    const open = await openConversation();
    expect((await stack.user.get('/runs?status=awaiting_input')).body.items.map((item: RunBody) => item.uuid)).toContain(open.uuid);
    expect((await stack.user.post(`/runs/${open.uuid}/cancel`)).status).toBe(202);
    expect((await stack.waitForRun(open.uuid)).status).toBe('cancelled');
  });

  it('answers a turn whose step failed with the error, and keeps the conversation open for the next message', async () => {
    const run = await openConversation();
    stack.model.script(reply.json({ next: 'Worker' }), reply.error(400, { message: 'no such model' }));
    const failed = await send(run, 'hello');
    expect(failed).toMatchObject({
      status: 200,
      body: { turn: 1, reply: '{"next":"Worker"}', status: 'failed', error_message: expect.stringContaining('Step "Worker" failed') },
    });
    expect((await stack.user.get(`/runs/${run.uuid}`)).body.status).toBe('awaiting_input');

    stack.model.script(reply.json({ next: 'END', reply: 'Sorry, try again later.' }));
    expect(await send(run, 'anyone?')).toMatchObject({
      status: 200,
      body: { turn: 2, reply: 'Sorry, try again later.', status: 'awaiting_input' },
    });
    expect((await stack.user.post(`/runs/${run.uuid}/cancel`)).status).toBe(202);
    expect((await stack.waitForRun(run.uuid)).status).toBe('cancelled');
  });

  it('refuses messages to a run that is not a conversation, and empty ones', async () => {
    const chain = await stack.createWorkflow([agentStep()]);
    stack.model.script(reply.text('done'));
    const run = await stack.waitForRun((await stack.startRun(chain.uuid)).uuid);
    expect(await send(run, 'hello')).toMatchObject({ status: 409, body: { code: 'NOT_CONVERSATIONAL' } });
    expect(await stack.user.post(`/runs/${run.uuid}/messages`, { content: ' ' })).toMatchObject({
      status: 422,
      body: { code: 'VALIDATION_FAILED', details: { field: 'content' } },
    });
  });

  it('imports the agentic 2nChat example as written, talks through it (Router -> RC2 -> END, Router -> the inferred externalSearchCaller -> END, end through the tool executor) and exports it', async () => {
    const agentUuid = new Map<string, string>();
    const agents = Object.entries(TWO_N_CHAT_AGENTS).map(([agentId, name]) => {
      const step = agentStep({ name, system_prompt: `You are ${name}.` });
      agentUuid.set(agentId, step.uuid);
      return step;
    });
    await stack.createWorkflow(agents);
    const asPrinted = twoNChat(agentUuid, `2nChat-${randomUUID().slice(0, 8)}`);
    expect(asPrinted.nodes.map((node) => node.id)).not.toContain('node-uuid-6');
    const imported = await stack.user.post('/workflows/import', asPrinted);
    expect(imported.status).toBe(201);
    const started = await stack.user.post(`/workflows/${imported.body.uuid}/runs`, {});
    const run = await stack.waitForRun(started.body.uuid, waiting);

    stack.model.script(reply.json({ next: 'RC2' }), reply.json({ next: 'END', reply: 'RC2 here: the report is ready.' }));
    expect(await send(run, 'is the report ready?')).toMatchObject({
      status: 200,
      body: { turn: 1, reply: 'RC2 here: the report is ready.', status: 'awaiting_input' },
    });

    // node-uuid-6, which the document's edges use without listing: the externalSearchCaller agent its edge names.
    stack.model.script(reply.json({ next: 'externalSearchCaller' }), reply.json({ next: 'END', reply: 'Found three sources.' }));
    expect(await send(run, 'find me sources')).toMatchObject({
      status: 200,
      body: { turn: 2, reply: 'Found three sources.', status: 'awaiting_input' },
    });
    expect(stack.model.requests[3].body.messages[0].content).toContain('You are externalSearchCaller.');

    // The router's end call goes to the tool executor (its edge), which runs it and routes back to the router.
    stack.model.script(reply.toolCalls([{ name: 'end', arguments: {} }]), reply.json({ next: 'END', reply: 'Bye!' }));
    expect(await send(run, 'thanks')).toMatchObject({ status: 200, body: { turn: 3, reply: 'Bye!', status: 'completed' } });
    const done = await stack.waitForRun(run.uuid);
    expect(done.status).toBe('completed');
    expect(done.steps.find((step: RunBody) => step.name === 'tool_executor')).toMatchObject({ status: 'completed', iteration_count: 1 });

    const exported = await stack.user.get(`/workflows/${imported.body.uuid}/export?format=agentic`);
    expect(exported.body).toMatchObject({ isConversational: true, entrypointNodeId: imported.body.steps[0].uuid });
    expect(exported.body.nodes.at(-1)).toMatchObject({
      nodeType: 'AGENT',
      nodeName: 'externalSearchCaller',
      agentId: imported.body.steps[5].uuid,
    });
    expect(exported.body.edges).toHaveLength(18);
  });
});

// The assistant keeps the conversation (#34): after a save the next message edits what it saved, after a
// failure a person can act on the next message goes on from it, an edit made elsewhere is the next turn's
// starting point and is never overwritten, a deleted workflow or a long silence closes the session, and a
// long session keeps answering across its continue-as-new executions with the last 10 exchanges sent.
import { ASSISTANT_WORKFLOW_TYPE, assistantWorkflowId, type AssistantSessionInput } from '../libs/contracts/src';
import { chainCandidate, clarifier, followEvents, newSession, SAVED_AT_FIRST_ATTEMPT, sendMessage, shapeOf } from './support/assistant';
import { llmStep } from './support/factories';
import { McpTestClient, type Structured } from './support/mcp-client';
import { reply } from './support/model-fake';
import type { SseEvent } from './support/sse';
import { useStack, type Stack } from './support/stack';
import { executionHistories } from './support/temporal-history';

type Candidate = ReturnType<typeof chainCandidate>;
type RecordedRequest = Stack['model']['requests'][number];

const lastOf = (events: SseEvent[]) => events[events.length - 1].data;
/** The WORKFLOW event of a saved turn (the one before its final STATUS_CHANGE). */
const savedOf = (events: SseEvent[]) => events[events.length - 2].data;
const userMessages = (request: RecordedRequest) => request.body.messages.filter((m) => m.role !== 'system').map((m) => m.content);
const systemOf = (request: RecordedRequest) => request.body.messages[0].content ?? '';
/** The message that opens a generation: what it must do and what it starts from. */
const generationRequestOf = (request: RecordedRequest) => request.body.messages[1].content ?? '';

describe('The assistant keeps the conversation', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  const say = async (session: string, text: string) => (await sendMessage(stack.user, session, text)).done;
  const details = async (uuid: string) => (await stack.user.get(`/workflows/${uuid}/details`)).body;
  const sessionView = async (session: string) => (await stack.user.get(`/assistant/sessions/${session}`)).body;

  /** The session's executions in Temporal, once there are `count` of them (or the deadline passed). */
  async function executionsOf(session: string, count: number) {
    for (const deadline = Date.now() + 10_000; ;) {
      const histories = await executionHistories(assistantWorkflowId(session));
      if (histories.length >= count || Date.now() > deadline) return histories;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A create session that saved `candidate` at its first turn; answers the session and the saved workflow's uuid. */
  async function built(candidate: Candidate = chainCandidate()): Promise<{ session: string; uuid: string }> {
    const session = await newSession(stack.user);
    stack.model.script(clarifier.ready(), reply.json(candidate));
    const events = await say(session, 'Summarise what I send, then translate the summary');
    expect(events.map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    return { session, uuid: savedOf(events).workflow_uuid };
  }

  /** The saved workflow as the model would answer it with one step more, reading the last one. */
  async function withStepAdded(uuid: string, name = 'shorten'): Promise<Candidate> {
    const { name: workflowName, description, steps } = await details(uuid);
    const last = steps[steps.length - 1];
    const kept = steps.map(({ uuid: stepUuid, type, name: stepName, model, system_prompt }: Record<string, string>) => ({
      uuid: stepUuid,
      type,
      name: stepName,
      model,
      system_prompt,
    }));
    return { name: workflowName, description, steps: [...kept, llmStep({ name, system_prompt: `Shorten <<step_output.${last.uuid}>>` })] };
  }

  it('edits what it saved at the next message: the same workflow uuid gets the extra step, and a run of it completes', async () => {
    const { session, uuid } = await built();
    const extended = await withStepAdded(uuid);
    stack.model.script(clarifier.ready('Summarise, translate, then shorten the translation'), reply.json(extended));
    const events = await say(session, 'add a step that shortens the translation');

    expect(events.map(shapeOf)).toEqual(['STATUS_CHANGE:completed>clarification', ...SAVED_AT_FIRST_ATTEMPT]);
    expect(savedOf(events)).toMatchObject({
      workflow_uuid: uuid,
      is_edit: true,
      saved_workflow: { uuid, steps: [{ name: 'summarise' }, { name: 'translate' }, { name: 'shorten' }] },
    });
    // The clarifier knew it was changing a saved workflow, with the whole conversation; the generation started from it.
    const [clarify, generation] = stack.model.requests.slice(2);
    expect(systemOf(clarify)).toContain('The workflow has been saved');
    expect(userMessages(clarify)).toEqual([
      'Summarise what I send, then translate the summary',
      'add a step that shortens the translation',
    ]);
    expect(generationRequestOf(generation)).toContain(`Start from workflow ${uuid} as it is now`);
    expect(generationRequestOf(generation)).toContain('"name":"translate"');

    expect((await details(uuid)).steps.map((step: { name: string }) => step.name)).toEqual(['summarise', 'translate', 'shorten']);
    expect(await sessionView(session)).toMatchObject({
      is_open: true,
      stage: 'completed',
      workflow_uuid: uuid,
      intent_summary: 'Summarise, translate, then shorten the translation',
    });
    stack.model.script(reply.text('a summary'), reply.text('une traduction'), reply.text('court'));
    const run = await stack.waitForRun((await stack.startRun(uuid, { text: 'a long article' })).uuid);
    expect(run).toMatchObject({
      status: 'completed',
      steps: [{ status: 'completed' }, { status: 'completed' }, { status: 'completed', name: 'shorten' }],
    });
    // Both dry runs are listed under the one workflow, with the run.
    const runs = (await stack.user.get(`/workflows/${uuid}/runs`)).body.items;
    expect(runs.map((r: { dry_run: boolean; status: string }) => [r.dry_run, r.status]).sort()).toEqual([
      [false, 'completed'],
      [true, 'completed'],
      [true, 'completed'],
    ]);
  });

  it('goes on after the corrections ran out: a clarifying message leads to a save, from the last candidate and its issues', async () => {
    const session = await newSession(stack.user);
    const broken = chainCandidate(undefined, true);
    stack.model.script(clarifier.ready(), ...[0, 1, 2, 3].map(() => reply.json(broken)));
    const failed = await say(session, 'Summarise and translate');
    expect(lastOf(failed)).toMatchObject({
      response_type: 'ERROR',
      is_final: true,
      error: { error_code: 'CORRECTIONS_EXHAUSTED', is_recoverable: true },
    });
    expect(await sessionView(session)).toMatchObject({ is_open: true, stage: 'failed', workflow_uuid: null });

    const fixed = { ...broken, steps: chainCandidate().steps };
    stack.model.script(clarifier.ready('Summarise, then translate the summary'), reply.json(fixed));
    const events = await say(session, 'The translation reads the summary');

    expect(events.map(shapeOf)).toEqual(['STATUS_CHANGE:failed>clarification', ...SAVED_AT_FIRST_ATTEMPT]);
    expect(savedOf(events)).toMatchObject({ is_edit: false, saved_workflow: { name: broken.name } });
    const [clarify, generation] = stack.model.requests.slice(5);
    expect(systemOf(clarify)).toContain('The last attempt to write the workflow failed');
    expect(userMessages(clarify)).toEqual([
      'Summarise and translate',
      expect.stringContaining('I could not save the workflow: The workflow still had problems'),
      'The translation reads the summary',
    ]);
    const opening = generationRequestOf(generation);
    expect(opening).toContain('Your last attempt was not saved');
    expect(opening).toMatch(/UNKNOWN_STEP_REFERENCE at steps\[1\]\.system_prompt/);
    expect(opening).toContain(JSON.stringify(broken));
    expect(await sessionView(session)).toMatchObject({
      is_open: true,
      stage: 'completed',
      workflow_uuid: savedOf(events).workflow_uuid,
      final_error_message: null,
    });
  });

  it('goes on after the provider failed past its retries (PROVIDER_ERROR, recoverable)', async () => {
    const session = await newSession(stack.user);
    stack.model.script(clarifier.ready(), ...[0, 1, 2, 3, 4].map(() => reply.error(503, { retryAfterMs: 1 })));
    const failed = await say(session, 'Summarise and translate');
    expect(failed.slice(-2).map(shapeOf)).toEqual(['STATUS_CHANGE:workflow_generation>failed', 'ERROR']);
    expect(lastOf(failed).error).toMatchObject({
      error_code: 'PROVIDER_ERROR',
      is_recoverable: true,
      message: expect.stringContaining('503'),
    });

    stack.model.script(clarifier.ready(), reply.json(chainCandidate()));
    expect((await say(session, 'try again')).map(shapeOf)).toEqual(['STATUS_CHANGE:failed>clarification', ...SAVED_AT_FIRST_ATTEMPT]);
  });

  it('starts the next turn from an edit made over REST in between, and overwrites none made during a turn', async () => {
    const { session, uuid } = await built();
    const translate = (await details(uuid)).steps[1];
    expect((await stack.user.patch(`/steps/${translate.uuid}`, { name: 'translate into French' })).status).toBe(200);

    const extended = await withStepAdded(uuid);
    stack.model.script(clarifier.ready(), reply.json(extended));
    const events = await say(session, 'add a step that shortens it');
    expect(savedOf(events)).toMatchObject({ workflow_uuid: uuid, is_edit: true });
    expect(generationRequestOf(stack.model.requests[3])).toContain('"name":"translate into French"');
    expect((await details(uuid)).steps.map((step: { name: string }) => step.name)).toEqual([
      'summarise',
      'translate into French',
      'shorten',
    ]);

    // Edited over REST while the model writes: the save refuses, the session stays open.
    stack.model.script(clarifier.ready(), { ...reply.json({ ...extended, description: 'from the assistant' }), delayMs: 1500 });
    const stream = await sendMessage(stack.user, session, 'describe it better');
    await stack.model.waitForRequests(6);
    expect((await stack.user.patch(`/workflows/${uuid}`, { description: 'edited by hand meanwhile' })).status).toBe(200);
    const refused = await stream.done;
    expect(lastOf(refused).error).toMatchObject({
      error_code: 'WORKFLOW_CHANGED',
      is_recoverable: true,
      message: expect.stringContaining('changed elsewhere'),
    });
    expect(await details(uuid)).toMatchObject({ description: 'edited by hand meanwhile', steps: [{}, {}, {}] });

    // The next message starts from the hand edit, with the attempt it could not save.
    stack.model.script(clarifier.ready(), reply.json({ ...extended, description: 'edited by hand meanwhile, then by the assistant' }));
    const saved = await say(session, 'keep my description and add to it');
    expect(savedOf(saved)).toMatchObject({ workflow_uuid: uuid, is_edit: true });
    const opening = generationRequestOf(stack.model.requests[7]);
    expect(opening).toContain('"description":"edited by hand meanwhile"');
    expect(opening).toContain('Your last attempt was not saved: Workflow');
    expect((await details(uuid)).description).toBe('edited by hand meanwhile, then by the assistant');
  });

  it('closes when the workflow it edits has been deleted: no message can fix that', async () => {
    const { session, uuid } = await built();
    expect((await stack.user.delete(`/workflows/${uuid}`)).status).toBe(204);
    const events = await say(session, 'add a step');

    expect(events.map(shapeOf)).toEqual(['STATUS_CHANGE:completed>failed', 'ERROR']);
    expect(lastOf(events).error).toMatchObject({
      error_code: 'SOURCE_DELETED',
      is_recoverable: false,
      message: expect.stringContaining(uuid),
    });
    expect(await sessionView(session)).toMatchObject({ is_open: false, stage: 'failed' });
    expect(await sendMessage(stack.user, session, 'hello?')).toMatchObject({ status: 409, error: { code: 'ASSISTANT_CLOSED' } });
    expect(stack.model.requests).toHaveLength(2);
    expect((await stack.user.get(`/workflows/${uuid}`)).status).toBe(404);
  });

  /**
   * The session's workflow started again as the API starts it, after its first turn, with `limits` in its
   * input: the product's (a day idle, ASSISTANT_MAX_TURNS messages) are too long for a spec.
   */
  async function restarted(session: string, uuid: string, limits: Pick<AssistantSessionInput, 'idle_timeout_seconds' | 'max_turns'>) {
    const client = await stack.temporal();
    const workflowId = assistantWorkflowId(session);
    await client.workflow.getHandle(workflowId).terminate('restarted with other limits');
    const input: AssistantSessionInput = {
      session_uuid: session,
      user_id: stack.user.userId,
      mode: 'create',
      source_workflow_uuid: null,
      ...limits,
      continued: { turns: 1, target_uuid: uuid },
    };
    return client.workflow.start(ASSISTANT_WORKFLOW_TYPE, { workflowId, taskQueue: stack.api.config.temporal.taskQueue, args: [input] });
  }

  it('closes once no message came for its idle time: a follower is told why, and the next message is refused', async () => {
    const { session, uuid } = await built();
    await (await restarted(session, uuid, { idle_timeout_seconds: 1 })).result();

    const events = await (await followEvents(stack.user, session, SAVED_AT_FIRST_ATTEMPT.length)).done;
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({
        response_type: 'ERROR',
        is_final: true,
        error: expect.objectContaining({
          error_code: 'SESSION_IDLE',
          is_recoverable: false,
          message: expect.stringContaining('No message for 1 seconds'),
        }),
      }),
    ]);
    expect(await sessionView(session)).toMatchObject({ is_open: false, stage: 'completed' });
    expect(await sendMessage(stack.user, session, 'still there?')).toMatchObject({ status: 409, error: { code: 'ASSISTANT_CLOSED' } });
  });

  it('closes after the last message it takes (ASSISTANT_MAX_TURNS), which is answered first', async () => {
    const { session, uuid } = await built();
    const handle = await restarted(session, uuid, { max_turns: 2 });
    stack.model.script(clarifier.asks('Shorter?'));
    await say(session, 'one more change');
    await handle.result();

    // The answer, then why the session ended (the turn's stream may carry both, being in MySQL together).
    const events = await (await followEvents(stack.user, session, SAVED_AT_FIRST_ATTEMPT.length)).done;
    expect(events.map(shapeOf)).toEqual(['STATUS_CHANGE:completed>clarification', 'MESSAGE', 'ERROR']);
    expect(events[1].data.message).toBe('Shorter?');
    expect(lastOf(events).error).toMatchObject({
      error_code: 'SESSION_FULL',
      is_recoverable: false,
      message: expect.stringContaining('its 2 messages'),
    });
    expect(await sessionView(session)).toMatchObject({ is_open: false, workflow_uuid: uuid });
    expect(await sendMessage(stack.user, session, 'yes')).toMatchObject({ status: 409, error: { code: 'ASSISTANT_CLOSED' } });
  });

  it("over MCP: a message answers its turn's events and whether the session is open", async () => {
    const mcp = await McpTestClient.connect(stack.user);
    try {
      const started = await mcp.ok('start_assistant_session', { mode: 'create' });
      expect(started).toMatchObject({ mode: 'create', stage: 'clarification', is_open: true });
      const send = (text: string) => mcp.ok('send_assistant_message', { session_uuid: started.uuid, text });
      const shapes = (answer: Structured) => answer.events.map((data: Record<string, unknown>) => shapeOf({ id: 0, data }));

      stack.model.script(clarifier.ready(), reply.json(chainCandidate()));
      const built = await send('Summarise what I send, then translate it');
      expect(built).toMatchObject({ turn_finished: true, session: { is_open: true, stage: 'completed' } });
      expect(shapes(built)).toEqual(SAVED_AT_FIRST_ATTEMPT);
      const uuid = built.session.workflow_uuid;

      stack.model.script(clarifier.ready(), reply.json(await withStepAdded(uuid)));
      const edited = await send('add a step');
      expect(edited.events[edited.events.length - 2]).toMatchObject({ response_type: 'WORKFLOW', workflow_uuid: uuid, is_edit: true });
      expect(edited.session).toMatchObject({ is_open: true, workflow_uuid: uuid });

      expect((await stack.user.delete(`/workflows/${uuid}`)).status).toBe(204);
      const closed = await send('and another');
      expect(shapes(closed)).toEqual(['STATUS_CHANGE:completed>failed', 'ERROR']);
      expect(closed).toMatchObject({
        turn_finished: true,
        session: { is_open: false },
        events: [{}, { error: { error_code: 'SOURCE_DELETED', is_recoverable: false } }],
      });
      expect(await mcp.ok('get_assistant_session', { session_uuid: started.uuid })).toMatchObject({ is_open: false, stage: 'failed' });
      expect(await mcp.call('send_assistant_message', { session_uuid: started.uuid, text: 'hello?' })).toMatchObject({
        isError: true,
        structured: { code: 'ASSISTANT_CLOSED' },
      });
    } finally {
      await mcp.close();
    }
  });

  it("runs at most 8 tool calls of one model answer: the rest are answered refused, so a turn's history stays bounded", async () => {
    const session = await newSession(stack.user);
    const calls = Array.from({ length: 11 }, (_, i) => ({
      name: 'get_step_type',
      arguments: { type: 'custom_llm' },
      id: `call_many_${i}`,
    }));
    stack.model.script(clarifier.ready(), reply.toolCalls(calls), reply.json(chainCandidate()));
    expect((await say(session, 'Summarise')).map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);

    const answers = stack.model.requests[2].body.messages.filter((m) => m.role === 'tool');
    expect(answers.map((m) => m.tool_call_id).sort()).toEqual(calls.map((call) => call.id).sort());
    const refused = answers.filter((m) => m.content?.includes('TOO_MANY_TOOL_CALLS')).map((m) => m.tool_call_id);
    expect(refused.sort()).toEqual(['call_many_10', 'call_many_8', 'call_many_9']);
    const history = await (await stack.temporal()).workflow.getHandle(assistantWorkflowId(session)).fetchHistory();
    const toolActivities = history.events!.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callAssistantTool',
    );
    expect(toolActivities).toHaveLength(8);
  });

  it('answers 60 turns in one session, continuing as new between turns, with the last 10 exchanges reaching the model', async () => {
    const session = await newSession(stack.user);
    let saved: string | null = null;
    for (let turn = 1; turn <= 60; turn++) {
      const text = `message ${turn}`;
      if (turn === 20) stack.model.script(clarifier.ready(), reply.json(chainCandidate()));
      else if (turn === 40) stack.model.script(clarifier.ready(), reply.json(await withStepAdded(saved!)));
      else stack.model.script(clarifier.asks(`question ${turn}?`));
      const events = await say(session, text);
      expect([turn, lastOf(events).is_final]).toEqual([turn, true]);
      if (turn === 20 || turn === 40) {
        expect(savedOf(events)).toMatchObject({ is_edit: turn === 40, ...(saved ? { workflow_uuid: saved } : {}) });
        saved = savedOf(events).workflow_uuid;
      } else expect([turn, lastOf(events).message]).toEqual([turn, `question ${turn}?`]);
    }

    const clarify = stack.model.requests[stack.model.requests.length - 1];
    const seen = userMessages(clarify);
    expect(seen).toHaveLength(19);
    expect([seen[0], seen[1], seen[18]]).toEqual(['message 51', 'question 51?', 'message 60']);
    const view = await sessionView(session);
    expect(view).toMatchObject({ is_open: true, workflow_uuid: saved });
    expect(view.conversations).toHaveLength(60 + 58);
    expect((await details(saved!)).steps).toHaveLength(3);
    // CONVERSATION_TURNS_PER_EXECUTION is 2 here: 30 executions of two turns each, and the one waiting now
    // (started once the workflow took in the last turn's end, a moment after its final event).
    const histories = await executionsOf(session, 31);
    expect(histories).toHaveLength(31);
    expect(Math.max(...histories.map((history) => history.events!.length))).toBeLessThan(300);
  });
});

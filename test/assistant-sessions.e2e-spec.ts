// The assistant's sessions as a client sees them: scoped to their user, one turn at a time, and a stream
// that a client may drop and pick up again without losing or repeating an event.
import { randomUUID } from 'node:crypto';
import { chainCandidate, clarifier, followEvents, newSession, SAVED_AT_FIRST_ATTEMPT, sendMessage, shapeOf } from './support/assistant';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('Assistant sessions', () => {
  let stack: Stack;
  // openrouter is offered (the model fake serves it); anthropic is not.
  useStack((started) => (stack = started), { openrouter: true });

  it("refuses bad sessions with the offending field, and lists, shows and deletes the user's own", async () => {
    const refusals = await Promise.all([
      stack.user.post('/assistant/sessions', { mode: 'rewrite' }),
      stack.user.post('/assistant/sessions', { mode: 'edit' }),
      stack.user.post('/assistant/sessions', { mode: 'create', source_workflow_uuid: randomUUID() }),
      stack.user.post('/assistant/sessions', { mode: 'create', temperature: 2 }),
      stack.user.post('/assistant/sessions', { mode: 'create', model: '' }),
      stack.user.post('/assistant/sessions', { mode: 'create', provider: 'mistral' }),
      stack.user.post('/assistant/sessions', { mode: 'create', provider: 'anthropic', model: 'claude-x' }),
      stack.user.post('/assistant/sessions', { mode: 'copy', source_workflow_uuid: randomUUID() }),
    ]);
    expect(refusals.map((r) => [r.status, r.body.code, r.body.details?.field])).toEqual([
      [422, 'VALIDATION_FAILED', 'mode'],
      [422, 'VALIDATION_FAILED', 'source_workflow_uuid'],
      [422, 'VALIDATION_FAILED', 'source_workflow_uuid'],
      [422, 'VALIDATION_FAILED', 'temperature'],
      [422, 'VALIDATION_FAILED', 'model'],
      [422, 'VALIDATION_FAILED', 'provider'],
      [422, 'PROVIDER_NOT_CONFIGURED', 'provider'],
      [404, 'NOT_FOUND', undefined],
    ]);
    const user = await stack.api.newUser();
    const session = await newSession(user, { mode: 'create', provider: 'openrouter', model: 'meta-llama/llama-3-8b' });
    const shown = await user.get(`/assistant/sessions/${session}`);
    expect(shown.body).toMatchObject({
      uuid: session,
      mode: 'create',
      provider: 'openrouter',
      model: 'meta-llama/llama-3-8b',
      stage: 'clarification',
      conversations: [],
      tokens: { total: 0 },
    });
    expect((await user.get('/assistant/sessions')).body).toMatchObject({ total: 1, items: [{ uuid: session }] });
    expect((await user.delete(`/assistant/sessions/${session}`)).status).toBe(204);
    expect((await user.get(`/assistant/sessions/${session}`)).status).toBe(404);
    expect((await user.get('/assistant/sessions')).body.total).toBe(0);
  });

  it('hides a session from another user: every route answers 404', async () => {
    const session = await newSession(stack.user);
    const other = await stack.api.newUser();
    const answers = [
      (await other.get(`/assistant/sessions/${session}`)).status,
      (await other.delete(`/assistant/sessions/${session}`)).status,
      (await sendMessage(other, session, 'hello')).status,
      (await followEvents(other, session)).status,
    ];
    expect(answers).toEqual([404, 404, 404, 404]);
    expect((await stack.user.get(`/assistant/sessions/${session}`)).status).toBe(200);
  });

  it("asks the session's provider and model, else the default provider's ASSISTANT_MODEL", async () => {
    const routed = await newSession(stack.user, { mode: 'create', provider: 'openrouter', model: 'meta-llama/llama-3-8b' });
    const plain = await newSession(stack.user);
    stack.model.script(clarifier.asks('Which language?'), clarifier.asks('How long?'));
    await (
      await sendMessage(stack.user, routed, 'Summarise')
    ).done;
    await (
      await sendMessage(stack.user, plain, 'Summarise')
    ).done;
    expect(stack.model.requests.map((request) => [request.headers.authorization, request.body.model])).toEqual([
      ['Bearer openrouter-key', 'meta-llama/llama-3-8b'],
      [expect.not.stringContaining('openrouter-key'), stack.api.config.assistant.model],
    ]);
  });

  it('refuses a second message while a turn runs (409), then takes the next one', async () => {
    const session = await newSession(stack.user);
    stack.model.script({ ...clarifier.asks('Which language?'), delayMs: 1500 });
    const first = await sendMessage(stack.user, session, 'Summarise');
    await stack.model.waitForRequests(1);
    const second = await sendMessage(stack.user, session, 'and translate');
    expect(second).toMatchObject({ status: 409, error: { code: 'ASSISTANT_BUSY', details: { field: 'text' } } });
    expect((await first.done).map((event) => event.data.message)).toEqual(['Which language?']);
    stack.model.script(clarifier.asks('How long?'));
    expect((await (await sendMessage(stack.user, session, 'English')).done).map((event) => event.data.message)).toEqual(['How long?']);
    const conversation = (await stack.user.get(`/assistant/sessions/${session}`)).body.conversations;
    expect(conversation.map((entry: { role: string; text: string }) => `${entry.role}: ${entry.text}`)).toEqual([
      'user: Summarise',
      'assistant: Which language?',
      'user: English',
      'assistant: How long?',
    ]);
  });

  it('replays what a client missed after it disconnected mid-generation, each event once', async () => {
    const session = await newSession(stack.user);
    // The generation's model call answers late: the client drops the stream while it runs.
    stack.model.script(clarifier.ready(), { ...reply.json(chainCandidate()), delayMs: 1500 });
    const stream = await sendMessage(stack.user, session, 'Summarise and translate');
    const [seen] = await stream.waitFor(1);
    stream.abort();
    expect(shapeOf(seen)).toBe('STATUS_CHANGE:clarification>workflow_generation');

    const resumed = await (await followEvents(stack.user, session, seen.id)).done;
    expect([seen, ...resumed].map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    expect(resumed.map((event) => event.id)).toEqual(resumed.map((_, i) => seen.id + 1 + i));
    // ?after= does the same for a client that cannot set the header; a replay from the end ends at once.
    const replay = await fetch(`${stack.user.baseUrl}/assistant/sessions/${session}/events?after=0`, {
      headers: { authorization: `Bearer ${stack.user.key}` },
    });
    expect((await replay.text()).match(/^id: \d+$/gm)).toHaveLength(SAVED_AT_FIRST_ATTEMPT.length);
    expect(await (await followEvents(stack.user, session, resumed[resumed.length - 1].id)).done).toEqual([]);
    expect((await followEvents(stack.user, session, 'x' as never)).status).toBe(422);
  });
});

// The worker (the built one, a child process) SIGKILLed while the assistant's generation call is in
// flight: a new worker picks the turn up, the session saves its workflow, the stream the client holds
// gets every event once, and no model call that had completed is asked again.
import { chainCandidate, clarifier, newSession, SAVED_AT_FIRST_ATTEMPT, sendMessage, shapeOf } from './support/assistant';
import { reply } from './support/model-fake';
import { useWorkerProcessStack, WorkerProcess } from './support/worker-process';

describe('A worker crash during an assistant turn', () => {
  const fixture = useWorkerProcessStack();
  // A save asks for step summaries, as REST does: off here, so that the script holds only the assistant's calls.
  const startWorker = async () => (fixture.worker = await WorkerProcess.start(fixture.api.config, undefined, { STEP_SUMMARIES: 'off' }));

  it('completes the session on a new worker without repeating a completed model call', async () => {
    const { model, api } = fixture;
    const user = await api.newUser();
    const session = await newSession(user);
    const candidate = chainCandidate();
    // The third call (the generation's answer) is still being written when the worker dies.
    model.script(
      clarifier.ready(),
      reply.toolCalls([{ name: 'list_step_types', arguments: {} }]),
      { ...reply.json(candidate), delayMs: 60_000 },
      reply.json(candidate),
    );
    await startWorker();
    const stream = await sendMessage(user, session, 'Summarise and translate');
    await model.waitForRequests(3);
    await fixture.worker!.kill();
    await model.waitUntil(
      () => model.requests[2].aborted,
      10_000,
      () => "the killed worker's call is still open",
    );
    await startWorker();
    const events = await stream.done;

    expect(events.map(shapeOf)).toEqual(SAVED_AT_FIRST_ATTEMPT);
    expect(events.map((event) => event.id)).toEqual(events.map((_, i) => events[0].id + i));
    expect((await user.get(`/assistant/sessions/${session}`)).body).toMatchObject({
      stage: 'completed',
      workflow_uuid: events[events.length - 2].data.workflow_uuid,
    });
    // Four requests: the three calls once each, plus the interrupted one asked again (it never answered).
    expect(model.requests.map((request) => [request.aborted, request.status])).toEqual([
      [false, 200],
      [false, 200],
      [true, null],
      [false, 200],
    ]);
    expect(model.requests[3].body.messages).toEqual(model.requests[2].body.messages);
    const completed = model.requests.filter((request) => request.status === 200).map((request) => JSON.stringify(request.body.messages));
    expect(new Set(completed).size).toBe(completed.length);
    model.assertDone();
  });
});

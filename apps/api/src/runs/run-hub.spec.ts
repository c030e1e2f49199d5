import type { ModelCallKey, RunDelta, RunDeltaRecord, RunEventRecord, RunEventRepository } from '@app/persistence';
import { deltaFrames, RunHub, withInputSchema } from './run-hub';

const RUN = 'run-1';
const CALL = { step_instance_uuid: 'step-1', turn: 1, attempt: 1 };

/** A run's events and pieces in memory, as the triggers and the worker would write them. */
class EventsFake implements Pick<RunEventRepository, keyof RunEventRepository> {
  readonly events: RunEventRecord[] = [];
  readonly deltas: RunDeltaRecord[] = [];
  readonly running = new Set<string>();

  event(type: string, payload: Record<string, unknown> = {}): void {
    const seq = this.events.length + 1;
    this.events.push({ id: seq, run_uuid: RUN, seq, type, payload, created_at: new Date(0) });
    const key = `${String(payload.instance_uuid)}:${String(payload.turn)}:${String(payload.attempt)}`;
    if (type === 'model_call_started') this.running.add(key);
    if (type === 'model_call_finished') this.running.delete(key);
  }

  piece(text: string, fields: Partial<RunDelta> = {}): void {
    this.deltas.push({ id: this.deltas.length + 1, ...CALL, kind: 'text', tool_index: null, text, ...fields });
  }

  eventsAfter = async (_run: string, seq: number, limit: number) => this.events.filter((event) => event.seq > seq).slice(0, limit);
  workflowEventsAfter = async () => [];
  lastSeq = async () => this.events.length;
  lastId = async () => this.events.length;
  appendDeltas = async () => undefined;
  deltasAfter = async (_run: string, id: number, limit: number) => this.deltas.filter((delta) => delta.id > id).slice(0, limit);
  callsInFlight = async (): Promise<ModelCallKey[]> =>
    [...this.running].map((key) => {
      const [step_instance_uuid, turn, attempt] = key.split(':');
      return { step_instance_uuid, turn: Number(turn), attempt: Number(attempt) };
    });
  deltasOf = async (_run: string, call: ModelCallKey, upTo: number) =>
    this.deltas.filter(
      (delta) => delta.id <= upTo && delta.step_instance_uuid === call.step_instance_uuid && delta.attempt === call.attempt,
    );
  lastDeltaId = async () => this.deltas.length;
  smallOutput = async () => null;
}

function sink() {
  const chunks: string[] = [];
  return {
    chunks,
    write: (chunk: string) => void chunks.push(chunk),
    closed: () => false,
    buffered: () => 0,
    /** Each frame's data, in order. */
    frames: () =>
      chunks
        .join('')
        .split('\n\n')
        .flatMap((frame) => /^data: (.*)$/m.exec(frame)?.[1] ?? [])
        .map((data) => JSON.parse(data) as Record<string, unknown>),
  };
}

const started = { instance_uuid: 'step-1', turn: 1, attempt: 1 };
const hubOver = (events: EventsFake) =>
  new RunHub(RUN, null, events as unknown as RunEventRepository, { pollMs: 1, idleMs: 60_000 }, () => undefined);

describe(deltaFrames.name, () => {
  it("merges one call's consecutive pieces of a kind into one frame, a tool call's head its own", () => {
    const delta = (id: number, fields: Partial<RunDeltaRecord>): RunDeltaRecord => ({
      id,
      ...CALL,
      kind: 'text',
      tool_index: null,
      text: '',
      ...fields,
    });

    const frames = deltaFrames([
      delta(1, { text: 'he' }),
      delta(2, { text: 'llo' }),
      delta(3, { kind: 'tool_call', tool_index: 0, text: '{"id":"c1","name":"f"}' }),
      delta(4, { kind: 'tool_args', tool_index: 0, text: '{"a"' }),
      delta(5, { kind: 'tool_args', tool_index: 0, text: ':1}' }),
    ]).map((frame) => JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>);

    expect(frames).toEqual([
      { type: 'delta', instance_uuid: 'step-1', turn: 1, attempt: 1, kind: 'text', text: 'hello' },
      { type: 'delta', instance_uuid: 'step-1', turn: 1, attempt: 1, kind: 'tool_call', index: 0, id: 'c1', name: 'f' },
      { type: 'delta', instance_uuid: 'step-1', turn: 1, attempt: 1, kind: 'tool_args', index: 0, text: '{"a":1}' },
    ]);
  });
});

describe(withInputSchema.name, () => {
  it("adds the waiting step's input_schema from the run's definition, and leaves other events alone", () => {
    const schema = { type: 'object', required: ['ok'] };
    const definition = { steps: [{ uuid: 'human-1', input_schema: schema }] };
    const event = (type: string): RunEventRecord => ({
      id: 1,
      run_uuid: RUN,
      seq: 1,
      type,
      payload: { step_uuid: 'human-1' },
      created_at: new Date(0),
    });

    expect(withInputSchema(event('awaiting_input'), definition).payload).toEqual({ step_uuid: 'human-1', input_schema: schema });
    expect(withInputSchema(event('step_started'), definition).payload).toEqual({ step_uuid: 'human-1' });
  });
});

describe(RunHub.name, () => {
  it('puts the pieces of a call started and ended within one poll between its start and its end, and ends after run_ended', async () => {
    const events = new EventsFake();
    events.event('run_started');
    const out = sink();
    const watching = hubOver(events).watch(out, 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    events.event('model_call_started', started);
    events.piece('Hel');
    events.piece('lo');
    events.event('model_call_finished', started);
    events.event('run_ended', { status: 'completed' });

    await watching;

    expect(out.frames().map((frame) => frame.type)).toEqual([
      'run_started',
      'model_call_started',
      'delta',
      'model_call_finished',
      'run_ended',
    ]);
    expect(out.frames()[2]).toMatchObject({ text: 'Hello' });
  });

  it("holds a piece whose call's start it has not read yet, and gives a late watcher the text so far", async () => {
    const events = new EventsFake();
    events.event('run_started');
    events.event('model_call_started', started);
    events.piece('Once upon');
    const late = sink();

    const watching = hubOver(events).watch(late, 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    events.piece(' a time');
    events.event('model_call_finished', started);
    events.event('run_ended', { status: 'completed' });
    await watching;

    expect(late.frames()).toEqual([
      { type: 'text_so_far', ...started, text: 'Once upon', tool_calls: [] },
      expect.objectContaining({ type: 'delta', text: ' a time' }),
      expect.objectContaining({ type: 'model_call_finished', seq: 3 }),
      expect.objectContaining({ type: 'run_ended', seq: 4 }),
    ]);
  });

  it("skips a late piece of a call that ended before the hub began, and goes on with the next call's", async () => {
    const events = new EventsFake();
    events.event('run_started');
    events.event('model_call_started', started);
    events.event('model_call_finished', started);
    const out = sink();
    const watching = hubOver(events).watch(out, 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const next = { instance_uuid: 'step-1', turn: 2, attempt: 1 };

    events.piece('late');
    events.event('model_call_started', next);
    events.piece('next', { turn: 2 });
    events.event('model_call_finished', next);
    events.event('run_ended', { status: 'completed' });
    await watching;

    expect(out.frames().map((frame) => [frame.type, frame.text])).toEqual([
      ['model_call_started', undefined],
      ['delta', 'next'],
      ['model_call_finished', undefined],
      ['run_ended', undefined],
    ]);
  });

  it('ends at once a watcher that resumes at the final event of a run that ended', async () => {
    const events = new EventsFake();
    events.event('run_started');
    events.event('run_ended', { status: 'completed' });
    const out = sink();

    await hubOver(events).watch(out, 2);

    expect(out.chunks).toEqual([]);
  });
});

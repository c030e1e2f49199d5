// One run's watchers in this API process, fed by one reader: however many clients watch a run, MySQL is
// asked once per poll for its new events and deltas (an indexed range read each), and only while someone
// watches. Events carry their seq as the SSE id (a reconnect resumes after it); deltas carry none, they are
// the answer in flight: a watcher that joins late gets each call's text so far, then the live pieces.
import type { ModelCallKey, RunDeltaRecord, RunEventRecord, RunEventRepository } from '@app/persistence';
import { idleNotice, KEEPALIVE_MS, sleep, type EventSink } from '../common/event-stream';

const EVENT_BATCH = 100;
/** A completed step's output travels in its event up to this size; a larger one is read by its output_id. */
export const OUTPUT_IN_EVENT_BYTES = 16 * 1024;
const DELTA_BATCH = 500;
/** What a watcher may hold unsent before it is dropped (it reconnects with Last-Event-ID): a slow client costs no more. */
export const MAX_BUFFERED_BYTES = 1 << 20;

export interface HubOptions {
  /** How often MySQL is asked while someone watches. */
  pollMs: number;
  /** A watcher's stream ends after this long without an event or a delta. */
  idleMs: number;
}

/** A client's stream: where it writes, how much it holds unsent, and the promise the request awaits. */
interface Watcher {
  sink: EventSink & { buffered(): number };
  after: number;
  lastFrameAt: number;
  lastWriteAt: number;
  done: () => void;
}

/** A model call's answer so far, as a late watcher gets it. */
interface CallText {
  text: string;
  tool_calls: { index: number; id: string; name: string; arguments: string }[];
}

const keyOf = (call: ModelCallKey): string => `${call.step_instance_uuid}:${call.turn}:${call.attempt}`;
const callOf = (payload: Record<string, unknown>): ModelCallKey => ({
  step_instance_uuid: String(payload.instance_uuid),
  turn: Number(payload.turn),
  attempt: Number(payload.attempt),
});

/**
 * A human-input step's `awaiting_input` with the step's `input_schema` from the run's definition (the
 * event is written by the database, which does not read the definition); other events as they are.
 */
export function withInputSchema(event: RunEventRecord, definition: unknown): RunEventRecord {
  if (event.type !== 'awaiting_input') return event;
  const steps = (definition as { steps?: { uuid?: unknown; input_schema?: unknown }[] } | null)?.steps ?? [];
  const step = steps.find((candidate) => candidate.uuid === event.payload.step_uuid);
  return { ...event, payload: { ...event.payload, input_schema: step?.input_schema ?? null } };
}

/** An event as the stream writes it: its seq the SSE id, its type and time beside its payload. */
export const eventFrame = (event: RunEventRecord, id = event.seq): string =>
  `id: ${id}\ndata: ${JSON.stringify({ type: event.type, seq: event.seq, run_uuid: event.run_uuid, at: event.created_at, ...event.payload })}\n\n`;

const dataFrame = (data: Record<string, unknown>): string => `data: ${JSON.stringify(data)}\n\n`;

/** Consecutive pieces of one call, kind and tool call merged into one frame each: fewer writes, the same text. */
export function deltaFrames(deltas: RunDeltaRecord[]): string[] {
  const frames: Record<string, unknown>[] = [];
  let last: Record<string, unknown> | null = null;
  for (const delta of deltas) {
    const call = { instance_uuid: delta.step_instance_uuid, turn: delta.turn, attempt: delta.attempt };
    if (delta.kind === 'tool_call') {
      const head = JSON.parse(delta.text) as { id: string; name: string };
      frames.push({ type: 'delta', ...call, kind: 'tool_call', index: delta.tool_index, id: head.id, name: head.name });
      last = null;
      continue;
    }
    const same =
      last &&
      last.instance_uuid === call.instance_uuid &&
      last.turn === call.turn &&
      last.attempt === call.attempt &&
      last.kind === delta.kind &&
      last.index === (delta.tool_index ?? undefined);
    if (same) last!.text = `${String(last!.text)}${delta.text}`;
    else
      frames.push(
        (last = {
          type: 'delta',
          ...call,
          kind: delta.kind,
          ...(delta.tool_index !== null ? { index: delta.tool_index } : {}),
          text: delta.text,
        }),
      );
  }
  return frames.map(dataFrame);
}

export class RunHub {
  private readonly watchers = new Set<Watcher>();
  private readonly joining: Watcher[] = [];
  /** The model calls in flight that this hub has announced, with their answers so far. */
  private readonly calls = new Map<string, CallText>();
  /** Calls that ended: a late piece of one goes at once, not held. */
  private readonly finished = new Set<string>();
  /** Calls that ended before this hub began: their late pieces are dropped (no watcher here saw them start). */
  private readonly unseen = new Set<string>();
  private seq = 0;
  private deltaId = 0;
  /** The seq of the run's final event once seen (a watcher resuming at or past it ends at once). */
  private endedAt: number | null = null;
  private started = false;
  private running = false;

  /** `definition`: the run's snapshot, for the input_schema of a step that waits for a person. */
  constructor(
    private readonly runUuid: string,
    private readonly definition: unknown,
    private readonly events: RunEventRepository,
    private readonly options: HubOptions,
    private readonly onIdle: () => void,
  ) {}

  /** Follows the run into `sink` from after event `after` until the run's end, the idle time, or the client goes. */
  watch(sink: Watcher['sink'], after: number): Promise<void> {
    return new Promise((resolve) => {
      const now = Date.now();
      this.joining.push({ sink, after, lastFrameAt: now, lastWriteAt: now, done: resolve });
      if (!this.running) {
        this.running = true;
        void this.loop();
      }
    });
  }

  get watching(): number {
    return this.watchers.size + this.joining.length;
  }

  private async loop(): Promise<void> {
    try {
      while (this.watchers.size || this.joining.length) {
        try {
          await this.tick();
        } catch {
          // A failed read (MySQL away): the watchers end and reconnect with Last-Event-ID.
          for (const watcher of [...this.watchers, ...this.joining.splice(0)]) this.leave(watcher);
        }
        if (this.watchers.size) await sleep(this.options.pollMs);
      }
    } finally {
      // Checked and cleared with no await between: a watcher that joins now starts a new loop.
      this.running = false;
      this.onIdle();
    }
  }

  private async tick(): Promise<void> {
    if (!this.started) await this.startAt();
    for (const watcher of this.joining.splice(0)) await this.admit(watcher);
    const frames = await this.newFrames();
    const now = Date.now();
    for (const watcher of this.watchers) {
      if (watcher.sink.closed() || watcher.sink.buffered() > MAX_BUFFERED_BYTES) {
        this.leave(watcher);
        continue;
      }
      if (frames.length) {
        watcher.sink.write(frames.join(''));
        watcher.lastFrameAt = watcher.lastWriteAt = now;
      } else if (now - watcher.lastFrameAt >= this.options.idleMs) {
        watcher.sink.write(idleNotice(this.options.idleMs, this.seq));
        this.leave(watcher);
        continue;
      } else if (now - watcher.lastWriteAt > KEEPALIVE_MS) {
        watcher.sink.write(': keep-alive\n\n');
        watcher.lastWriteAt = now;
      }
      if (this.endedAt !== null) this.leave(watcher);
    }
  }

  /** Where a new hub starts reading: after the run's last event and delta, each call in flight's text so far loaded. */
  private async startAt(): Promise<void> {
    this.seq = await this.events.lastSeq(this.runUuid);
    this.deltaId = await this.events.lastDeltaId(this.runUuid);
    const [last] = this.seq ? await this.events.eventsAfter(this.runUuid, this.seq - 1, 1) : [];
    if (last?.type === 'run_ended') this.endedAt = last.seq;
    for (const call of await this.events.callsInFlight(this.runUuid)) {
      const text: CallText = { text: '', tool_calls: [] };
      for (const delta of await this.events.deltasOf(this.runUuid, call, this.deltaId, 100_000)) accumulate(text, delta);
      this.calls.set(keyOf(call), text);
    }
    this.started = true;
  }

  /** A new watcher: the events it missed up to the hub's place, then each call in flight's text so far, then it is live. */
  private async admit(watcher: Watcher): Promise<void> {
    for (let cursor = watcher.after; cursor < this.seq;) {
      const events = (await this.events.eventsAfter(this.runUuid, cursor, EVENT_BATCH)).filter((event) => event.seq <= this.seq);
      if (!events.length) break;
      watcher.sink.write((await this.completed(events)).map((event) => eventFrame(event)).join(''));
      cursor = events[events.length - 1].seq;
    }
    if (this.endedAt !== null && watcher.after <= this.endedAt) return this.leave(watcher);
    for (const [key, call] of this.calls) {
      const [step_instance_uuid, turn, attempt] = key.split(':');
      watcher.sink.write(
        dataFrame({ type: 'text_so_far', instance_uuid: step_instance_uuid, turn: Number(turn), attempt: Number(attempt), ...call }),
      );
    }
    watcher.lastFrameAt = watcher.lastWriteAt = Date.now();
    this.watchers.add(watcher);
  }

  /**
   * The events and pieces written since the last poll, in the order they happened. A call's pieces are
   * written after its start event commits (its last ones beside its end, possibly after it), but are read
   * after the events: so a piece of a call whose start is not read yet waits for the next poll, the pieces of
   * a call whose end was read in the same poll go just before that end, and a piece of a call that ended
   * goes as it comes.
   */
  private async newFrames(): Promise<string[]> {
    const events: RunEventRecord[] = [];
    for (let more = true; more;) {
      const batch = await this.events.eventsAfter(this.runUuid, this.seq, EVENT_BATCH);
      for (const event of batch) {
        this.seq = event.seq;
        if (event.type === 'model_call_started') this.calls.set(keyOf(callOf(event.payload)), { text: '', tool_calls: [] });
        else if (event.type === 'run_ended') this.endedAt = event.seq;
      }
      events.push(...batch);
      more = batch.length === EVENT_BATCH;
    }
    const pieces = new Map<string, RunDeltaRecord[]>();
    let inFlight: Set<string> | null = null;
    for (const delta of await this.events.deltasAfter(this.runUuid, this.deltaId, DELTA_BATCH)) {
      const key = keyOf(delta);
      const call = this.calls.get(key);
      if (!call && !this.finished.has(key) && !this.unseen.has(key)) {
        // Its row (written with its start event) exists: still running, its start is not read yet, so wait;
        // ended, it ended before this hub began and this is its last batch, come late: nobody here saw it start.
        inFlight ??= new Set((await this.events.callsInFlight(this.runUuid)).map(keyOf));
        if (inFlight.has(key)) break;
        this.unseen.add(key);
      }
      this.deltaId = delta.id;
      if (this.unseen.has(key)) continue;
      if (call) accumulate(call, delta);
      pieces.set(key, [...(pieces.get(key) ?? []), delta]);
    }
    const frames: string[] = [];
    for (const event of await this.completed(events)) {
      if (event.type === 'model_call_finished') {
        const key = keyOf(callOf(event.payload));
        frames.push(...deltaFrames(pieces.get(key) ?? []));
        pieces.delete(key);
        this.calls.delete(key);
        this.finished.add(key);
      }
      frames.push(eventFrame(event));
    }
    frames.push(...deltaFrames([...pieces.values()].flat().sort((a, b) => a.id - b.id)));
    return frames;
  }

  /**
   * Events as watchers get them: a waiting step's input_schema added, and a completed step's output (a
   * structured step's validated object) when it is small; read once per hub, whatever the watchers.
   */
  private async completed(events: RunEventRecord[]): Promise<RunEventRecord[]> {
    return Promise.all(
      events.map(async (event) => {
        const shown = withInputSchema(event, this.definition);
        if (shown.type !== 'step_completed' || typeof shown.payload.output_id !== 'string') return shown;
        const output = await this.events.smallOutput(shown.payload.output_id, OUTPUT_IN_EVENT_BYTES);
        return output ? { ...shown, payload: { ...shown.payload, output: output.data } } : shown;
      }),
    );
  }

  private leave(watcher: Watcher): void {
    this.watchers.delete(watcher);
    watcher.done();
  }
}

function accumulate(call: CallText, delta: RunDeltaRecord): void {
  if (delta.kind === 'text') call.text += delta.text;
  else if (delta.kind === 'tool_call')
    call.tool_calls.push({ index: delta.tool_index ?? 0, ...(JSON.parse(delta.text) as { id: string; name: string }), arguments: '' });
  else {
    const tool = call.tool_calls.find((known) => known.index === delta.tool_index);
    if (tool) tool.arguments += delta.text;
  }
}

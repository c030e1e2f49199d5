import type { AssistantEventRecord } from '@app/persistence';
import { resumeFrom, resumePoint } from '../common/event-stream';
import { assertResumable, followEvents, type StreamOptions } from './event-stream';

describe(resumePoint.name, () => {
  it('starts after Last-Event-ID, else after ?after=, else from the first event; anything else is refused (null)', () => {
    expect(resumePoint('7', '3')).toBe(7);
    expect(resumePoint(undefined, '3')).toBe(3);
    expect(resumePoint(undefined, undefined)).toBe(0);
    expect(['x', '-1', '1e3', '1234567890'].map((value) => resumePoint(value, undefined))).toEqual([null, null, null, null]);
  });
});

describe(resumeFrom.name, () => {
  it('gives the resume point, or a 422 naming the header or the parameter that is not an event id', () => {
    expect(resumeFrom(undefined, '3')).toBe(3);
    expect(resumeFrom('123456789012345', undefined, 15)).toBe(123456789012345);
    expect(() => resumeFrom('x', '3')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'Last-Event-ID' } }));
    expect(() => resumeFrom(undefined, 'x')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field: 'after' } }));
  });
});

/** A session's events in memory, counting how often the stream asks for them. */
class EventsFake {
  polls = 0;
  constructor(readonly events: AssistantEventRecord[] = []) {}

  eventsAfter = async (_session: string, seq: number, limit: number) => {
    this.polls++;
    return this.events.filter((event) => event.seq > seq).slice(0, limit);
  };

  lastSeq = async () => this.events.at(-1)?.seq ?? 0;
}

const event = (seq: number, is_final = false): AssistantEventRecord => ({ seq, payload: { response_type: 'MESSAGE', is_final } });

/** A sink that keeps what was written; `closeAfter` writes, the client goes away. */
function sink(closeAfter = Infinity) {
  const chunks: string[] = [];
  return {
    chunks,
    write: (chunk: string) => void chunks.push(chunk),
    closed: () => chunks.length >= closeAfter,
    ids: () => chunks.flatMap((chunk) => /^id: (\d+)/.exec(chunk)?.[1] ?? []).map(Number),
  };
}

const options = (overrides: Partial<StreamOptions> = {}): StreamOptions => ({
  resuming: true,
  sessionEnded: false,
  idleMs: 60_000,
  pollMs: 1,
  ...overrides,
});

describe(followEvents.name, () => {
  it('ends once nothing has come for the idle time, saying where to pick up, after a bounded number of polls', async () => {
    const events = new EventsFake([event(1), event(2)]);
    const sut = sink();
    const started = Date.now();
    await followEvents(sut, events, 's', 0, options({ idleMs: 50, pollMs: 5 }));
    expect(sut.ids()).toEqual([1, 2]);
    expect(sut.chunks.at(-1)).toMatch(/^: no event for 0 s: reconnect with Last-Event-ID 2\n\n$/);
    // At least the idle time passed, and no more polls than one per pollMs over it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(events.polls).toBeLessThanOrEqual((Date.now() - started) / 5 + 2);
  });

  it("ends at the turn's final event, and at once when resumed from a final event with nothing after it", async () => {
    const events = new EventsFake([event(1), event(2, true)]);
    const whole = sink();
    await followEvents(whole, events, 's', 0, options());
    expect(whole.ids()).toEqual([1, 2]);
    const resumed = sink();
    await followEvents(resumed, events, 's', 2, options());
    expect(resumed.chunks).toEqual([]);
  });

  it("ends once an ended session's events are sent, even when the last is not final", async () => {
    const events = new EventsFake([event(1), event(2)]);
    const sut = sink();
    await followEvents(sut, events, 's', 1, options({ sessionEnded: true }));
    expect(sut.ids()).toEqual([2]);
    expect(events.polls).toBe(2);
  });

  it('sends a long backlog whole, in batches, and stops reading when the client goes away', async () => {
    const events = new EventsFake(Array.from({ length: 250 }, (_, i) => event(i + 1, i === 249)));
    const whole = sink();
    await followEvents(whole, events, 's', 0, options());
    expect(whole.ids()).toEqual(events.events.map((e) => e.seq));
    const gone = sink(0);
    await followEvents(gone, new EventsFake(), 's', 0, options());
    expect(gone.chunks).toEqual([]);
  });
});

describe(assertResumable.name, () => {
  it('accepts any id up to the last event, and refuses one past it naming the field', async () => {
    const events = new EventsFake([event(1), event(2)]);
    await expect(assertResumable(events, 's', 2, 'after')).resolves.toBeUndefined();
    await expect(assertResumable(new EventsFake(), 's', 0, 'after')).resolves.toBeUndefined();
    await expect(assertResumable(events, 's', 3, 'Last-Event-ID')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'Last-Event-ID', last_event_id: 2 },
    });
  });
});

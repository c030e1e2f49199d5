// One tenant cannot take the system down at the API's edges (issue #26): every event stream ends, one key
// holds a bounded number open, a flood of bad keys, webhooks or readiness probes from one address is
// refused before it reaches MySQL or Temporal (while a working key and liveness still answer), and a codec
// request carries a bounded number of payloads.
import { randomUUID } from 'node:crypto';
import { clarifier, followEvents, newSession, sendMessage } from './support/assistant';
import { ApiClient, type Reply, startApi, testConfig, type TestApi } from './support/api';
import { openSse, type SseEvent, type SseStream } from './support/sse';
import { useStack, type Stack } from './support/stack';

/** `count` requests, `concurrency` at a time: a client that floods without opening a thousand sockets. */
async function flood(count: number, concurrency: number, send: (i: number) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let start = 0; start < count; start += concurrency) {
    replies.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, i) => send(start + i)))));
  }
  return replies;
}

/** What a client does (the assistant page, EventSource): reconnects after the last event it saw until the turn's final one. */
async function followToFinal(user: ApiClient, session: string, after: number): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (let attempt = 0; attempt < 20 && !seen.at(-1)?.data.is_final; attempt++) {
    seen.push(...(await (await followEvents(user, session, seen.at(-1)?.id ?? after)).done));
  }
  return seen;
}

const statusCounts = (replies: Reply[]) =>
  replies.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('Event streams that end (SSE_IDLE_SECONDS=1)', () => {
  let stack: Stack;
  useStack((started) => (stack = started), { assistant: { streamIdleSeconds: 1 } });

  it("refuses to follow from an id past the session's last event, by header or ?after=, naming it", async () => {
    const session = await newSession(stack.user);
    const byHeader = await followEvents(stack.user, session, 999_999);
    expect(byHeader).toMatchObject({
      status: 422,
      error: { code: 'VALIDATION_FAILED', details: { field: 'Last-Event-ID', last_event_id: 0 } },
    });
    const byQuery = await openSse(`${stack.user.baseUrl}/assistant/sessions/${session}/events?after=5`, { key: stack.user.key! });
    expect(byQuery).toMatchObject({ status: 422, error: { code: 'VALIDATION_FAILED', details: { field: 'after' } } });
  });

  it('ends a stream with nothing coming after the idle time', async () => {
    const session = await newSession(stack.user);
    const stream = await followEvents(stack.user, session);
    expect(stream.status).toBe(200);
    expect(await stream.done).toEqual([]);
  }, 20_000);

  it("ends a turn's stream that goes quiet longer than the idle time; following after it picks up the turn's answer", async () => {
    const session = await newSession(stack.user);
    stack.model.script({ ...clarifier.asks('Which language?'), delayMs: 2_500 });
    const quiet = await sendMessage(stack.user, session, 'Summarise');
    expect(await quiet.done).toEqual([]);
    const resumed = await followToFinal(stack.user, session, 0);
    expect(resumed.map((event) => [event.data.response_type, event.data.message, event.data.is_final])).toEqual([
      ['MESSAGE', 'Which language?', true],
    ]);
  }, 30_000);
});

describe('Limits per key and per address (SSE_MAX_STREAMS_PER_KEY=2, ADDRESS_RATE_LIMIT_BURST=50)', () => {
  let stack: Stack;
  let second: ApiClient;
  // One token a minute after the burst: what each flood gets through is the burst, give or take one.
  useStack((started) => (stack = started), {
    assistant: { maxStreamsPerKey: 2 },
    quotas: { addressRequestsPerMinute: 1, addressRequestBurst: 50 },
  });
  // Both keys authenticate once before any flood: seen to work, they pass whatever the floods leave.
  beforeAll(async () => {
    second = await stack.api.newUser();
    for (const user of [stack.user, second]) expect((await user.get('/workflows')).status).toBe(200);
  });

  it('refuses a key its third stream with 429 TOO_MANY_STREAMS, sending no message, and gives the slot back when a stream closes', async () => {
    const user = stack.user;
    const session = await newSession(user);
    const open: SseStream[] = [];
    try {
      open.push(await followEvents(user, session), await followEvents(user, session));
      expect(open.map((stream) => stream.status)).toEqual([200, 200]);

      expect(await followEvents(user, session)).toMatchObject({ status: 429, error: { code: 'TOO_MANY_STREAMS', details: { limit: 2 } } });
      expect(await sendMessage(user, session, 'hello')).toMatchObject({ status: 429, error: { code: 'TOO_MANY_STREAMS' } });
      expect((await user.get(`/assistant/sessions/${session}`)).body.conversations).toEqual([]);
      // Another key is not held back by this one's streams.
      const elsewhere = await followEvents(second, await newSession(second));
      open.push(elsewhere);
      expect(elsewhere.status).toBe(200);

      open.shift()!.abort();
      const again = await retryUntilOpen(() => followEvents(user, session));
      open.push(again);
      expect(again.status).toBe(200);
    } finally {
      open.forEach((stream) => stream.abort());
    }
  });

  it('answers a flood of bad keys from one address with 429 RATE_LIMITED and Retry-After; a key seen to work still works, and liveness answers throughout', async () => {
    // Naming other addresses in X-Forwarded-For changes nothing: no proxy is trusted (API_TRUST_PROXY off).
    const guess = (i: number) =>
      new ApiClient(stack.api.baseUrl, `sk_guess_${i}_${randomUUID()}`, 'guesser').call('GET', '/workflows', undefined, {
        'x-forwarded-for': `203.0.113.${i % 250}`,
      });
    const guesses = await flood(500, 50, guess);
    const live = await flood(100, 50, () => stack.api.anonymous().get('/health/live'));

    const counts = statusCounts(guesses);
    expect(Object.keys(counts).sort()).toEqual(['401', '429']);
    expect(counts[401]).toBeLessThanOrEqual(50);
    const refused = guesses.filter((reply) => reply.status === 429);
    expect(refused.every((reply) => reply.body.code === 'RATE_LIMITED' && Number(reply.headers.get('retry-after')) >= 1)).toBe(true);
    expect(statusCounts(live)).toEqual({ 200: 100 });

    expect((await stack.user.get('/workflows')).status).toBe(200);
    expect((await second.get('/workflows')).status).toBe(200);
    // A key this API has not seen authenticate waits like any unknown one: looking every key up would hand
    // MySQL back to the flood. It gets in once the address's allowance refills (Retry-After).
    const unseen = await stack.api.newUser();
    expect(await unseen.get('/workflows')).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
  });

  it('limits webhook deliveries and readiness probes per address, each apart from bad keys, and never liveness', async () => {
    const anonymous = stack.api.anonymous();
    const [hooks, ready, live] = await Promise.all([
      flood(80, 20, () => anonymous.post(`/hooks/${randomUUID()}`, { event: 'x' })),
      flood(80, 20, () => anonymous.get('/health/ready')),
      flood(200, 20, () => anonymous.get('/health/live')),
    ]);
    // An unsigned delivery is refused (401) after its trigger is looked up: the burst's worth of them.
    expect(statusCounts(hooks)[401]).toBeLessThanOrEqual(51);
    expect(statusCounts(hooks)[429]).toBeGreaterThanOrEqual(29);
    expect(statusCounts(ready)[429]).toBeGreaterThanOrEqual(29);
    expect(
      hooks
        .concat(ready)
        .filter((reply) => reply.status === 429)
        .every((reply) => reply.body.code === 'RATE_LIMITED'),
    ).toBe(true);
    expect(statusCounts(live)).toEqual({ 200: 200 });
  });
});

/** A stream closed by its client frees its slot within one poll of the server: ask again until it does. */
async function retryUntilOpen(open: () => Promise<SseStream>, timeoutMs = 10_000): Promise<SseStream> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stream = await open();
    if (stream.status !== 429 || Date.now() > deadline) return stream;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Codec requests capped in payloads (TEMPORAL_CODEC_MAX_PAYLOADS=3, TEMPORAL_CODEC_MAX_BYTES=64)', () => {
  let api: TestApi;
  let user: ApiClient;
  beforeAll(async () => {
    const base = testConfig();
    api = await startApi({ ...base, temporal: { ...base.temporal, codecMaxPayloads: 3, codecMaxBytes: 64 } });
    user = await api.newUser();
  });
  afterAll(() => api?.close());

  const payload = (text: string) => ({
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify(text)).toString('base64'),
  });

  it('refuses more payloads than allowed, or more bytes, with 413 PAYLOAD_TOO_LARGE naming payloads, on decode and encode', async () => {
    const four = { payloads: ['a', 'b', 'c', 'd'].map(payload) };
    const heavy = { payloads: [payload('x'.repeat(40)), payload('y'.repeat(40))] };
    const answers = await Promise.all([
      user.post('/temporal-codec/decode', four),
      user.post('/temporal-codec/encode', four),
      user.post('/temporal-codec/encode', heavy),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body.code, answer.body.details])).toEqual([
      [413, 'PAYLOAD_TOO_LARGE', { field: 'payloads', limit: 3 }],
      [413, 'PAYLOAD_TOO_LARGE', { field: 'payloads', limit: 3 }],
      [413, 'PAYLOAD_TOO_LARGE', { field: 'payloads', limit_bytes: 64 }],
    ]);
    const within = await user.post('/temporal-codec/encode', { payloads: ['a', 'b', 'c'].map(payload) });
    expect(within.status).toBe(200);
    expect(within.body.payloads).toHaveLength(3);
  });
});

describe('API_TRUST_PROXY=loopback: a client is the address its proxy forwarded', () => {
  let api: TestApi;
  beforeAll(async () => {
    const base = testConfig();
    api = await startApi({
      ...base,
      api: { ...base.api, trustProxy: ['loopback'] },
      quotas: { ...base.quotas, addressRequestsPerMinute: 1, addressRequestBurst: 3 },
    });
  });
  afterAll(() => api?.close());

  const from = (address: string) => api.anonymous().call('GET', '/workflows', undefined, { 'x-forwarded-for': `${address}, 127.0.0.1` });
  const statuses = async (address: string, count: number) => (await flood(count, 1, () => from(address))).map((reply) => reply.status);

  it('counts each forwarded client apart, an IPv6 one by its /64', async () => {
    expect(await statuses('203.0.113.1', 5)).toEqual([401, 401, 401, 429, 429]);
    expect(await statuses('203.0.113.2', 4)).toEqual([401, 401, 401, 429]);
    expect([...(await statuses('2001:db8::1', 2)), ...(await statuses('2001:db8::2', 2))]).toEqual([401, 401, 401, 429]);
  });
});

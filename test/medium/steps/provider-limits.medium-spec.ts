// Provider limits shared by every worker: calls to a limited provider account take slots booked in MySQL,
// spaced evenly over the minute; a provider's 429 pushes every later caller past its retry-after; a user
// holding their share of slots ahead lets another user's call through first.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ProviderRateRepository, type NewRun } from '@app/persistence';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

// 600 requests a minute: one every 100 ms.
const RPM = 600;

describe(`${LlmStepService.name}: provider limits`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices({ providerLimits: new Map([['openai', { requestsPerMinute: RPM, tokensPerMinute: null }]]) });
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  async function recordedRun(steps: number): Promise<{ run: NewRun; step: ReturnType<typeof llmStep> }> {
    const step = llmStep();
    const run = newRun(
      newUserId(),
      workflowDefinition(Array.from({ length: steps }, () => ({ ...step, uuid: randomUUID(), name: `s${randomUUID().slice(0, 6)}` }))),
    );
    await setup.runs.create(run);
    return { run, step };
  }

  const gaps = () => setup.model.requests.slice(1).map((request, i) => request.received_at - setup.model.requests[i].received_at);

  it('spaces calls sent at once to the requests per minute', async () => {
    const { run, step } = await recordedRun(5);
    setup.model.respondWith(() => reply.text('ok'));
    const start = Date.now();

    await Promise.all([0, 1, 2, 3, 4].map((position) => setup.llm.run(stepContext(run, position), step, activityScope())));

    expect(setup.model.requests).toHaveLength(5);
    // The k-th call waits for the k-th slot, 100 ms apart from the first booked at or after `start`: never
    // sooner (a loaded machine may only make a call later, so two gaps are not compared). Timer slack: 10 ms.
    const arrivals = setup.model.requests.map((request) => request.received_at - start).sort((a, b) => a - b);
    arrivals.forEach((at, k) => expect(at).toBeGreaterThanOrEqual(k * 100 - 10));
  });

  it("holds every later caller of the account past a provider's retry-after, and sends the refused call again itself", async () => {
    const { run, step } = await recordedRun(2);
    setup.model.script(reply.error(429, { retryAfterMs: 1500 }), reply.text('ok'), reply.text('ok'));

    // One activity attempt: the refused call goes again at its next slot, past the retry-after.
    await setup.llm.run(stepContext(run, 0), step, activityScope());
    await setup.llm.run(stepContext(run, 1), step, activityScope());

    expect(setup.model.requests.map((request) => request.status)).toEqual([429, 200, 200]);
    expect(gaps()[0]).toBeGreaterThanOrEqual(1400);
    const attempts = (await setup
      .get(DataSource)
      .query('SELECT attempt, status FROM model_calls WHERE step_instance_uuid = ? ORDER BY attempt', [
        stepContext(run, 0).instance_uuid,
      ])) as { attempt: number; status: string }[];
    expect(attempts).toEqual([
      { attempt: 1, status: 'failed' },
      { attempt: 2, status: 'completed' },
    ]);
  });

  it('moves the slots booked before 429s by what they pushed the schedule, no slot booked after them, and widens the spacing', async () => {
    const rates = setup.get(ProviderRateRepository);
    const account = `openai:shift-${randomUUID()}`;
    const limits = { requestsPerMinute: 60, tokensPerMinute: null, userLookahead: 100 };
    const [early, late] = [await rates.book(account, 'u', 100, limits), await rates.book(account, 'u', 100, limits)];

    await rates.block(account, 5_000, limits);
    // A second 429 at once (another request too many) makes room for its request: an interval more, not 5 s.
    await rates.block(account, 5_000, limits);
    const after = await rates.book(account, 'u', 100, limits);

    const shiftOf = async (booking: typeof early) => rates.shiftedSince(account, (booking as { shiftedMs: number }).shiftedMs);
    const [earlyShift, lateShift] = [await shiftOf(early), await shiftOf(late)];
    // 5 s from the first block, 1 s (an interval) from the second.
    expect(earlyShift).toBeGreaterThanOrEqual(6_000);
    expect(earlyShift).toBeLessThan(7_000);
    expect(lateShift).toBe(earlyShift);
    expect(await shiftOf(after)).toBe(0);
    // The slot booked after it comes after the moved ones: the third slot (2 s) moved as far.
    expect((after as { waitMs: number }).waitMs).toBeGreaterThanOrEqual(2_000 + earlyShift - 100);
    // And the account's requests are spaced wider from then on: twice the retry-after over a minute's 60 requests
    // (167 ms), at most a tenth of the 1 s interval.
    const [rate] = (await setup.get(DataSource).query('SELECT slack_ms FROM provider_rates WHERE rate_key = ?', [account])) as {
      slack_ms: number;
    }[];
    expect(Number(rate.slack_ms)).toBe(100);
  });

  it("lets another user's call through while one user holds their share of slots ahead", async () => {
    const rates = setup.get(ProviderRateRepository);
    const account = `openai:fairness-${randomUUID()}`;
    // 60 a minute (a slot a second), each user at most 2 slots ahead.
    const limits = { requestsPerMinute: 60, tokensPerMinute: null, userLookahead: 2 };

    const burst = [];
    for (let i = 0; i < 5; i++) burst.push(await rates.book(account, 'burst-user', 100, limits));
    const single = await rates.book(account, 'single-user', 100, limits);

    expect(burst.map((booking) => booking.booked)).toEqual([true, true, true, false, false]);
    expect(burst[3]).toMatchObject({ retryInMs: expect.any(Number) });
    // The single call's slot is the fourth, right after the burst's share, not after its whole burst.
    expect(single).toMatchObject({ booked: true });
    expect((single as { waitMs: number }).waitMs).toBeGreaterThan(2500);
    expect((single as { waitMs: number }).waitMs).toBeLessThanOrEqual(3100);
  });

  it('books tokens per minute as well: past a minute of tokens ahead, a call waits for them', async () => {
    const rates = setup.get(ProviderRateRepository);
    const account = `openai:tokens-${randomUUID()}`;
    const limits = { requestsPerMinute: 6000, tokensPerMinute: 1000, userLookahead: 100 };

    const first = await rates.book(account, 'u', 1000, limits);
    const second = await rates.book(account, 'u', 1000, limits);
    const third = await rates.book(account, 'u', 1000, limits);

    expect([first, second].map((booking) => (booking as { waitMs: number }).waitMs)).toEqual([0, expect.any(Number)]);
    expect((second as { waitMs: number }).waitMs).toBeLessThan(100);
    // Two minutes of tokens booked: the third waits about a minute.
    expect((third as { waitMs: number }).waitMs).toBeGreaterThan(59_000);
  });
});

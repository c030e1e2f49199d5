// Spend limits in dollars: each call's worst case reserved in the user's day and month before it is sent,
// settled after, so parallel calls pass a limit by at most one call's worst case; a spent day refuses starts.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SpendRepository, WorkflowRepository, type NewRun } from '@app/persistence';
import { RunLauncher, RunPreparer, SpendRechecks } from '@app/runs';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, noTools, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

// $2 and $8 per million tokens: a call of max_tokens 1,000 may cost about $0.008, so a $0.01 day holds one in flight.
const PRICE = { input: 2, output: 8, cached_input: 2 };
const DAILY_LIMIT = 0.01;
// What each call really costs: 100 prompt and 50 answer tokens.
const USAGE = { prompt_tokens: 100, completion_tokens: 50 };
const CALL_COST = (100 * 2 + 50 * 8) / 1e6;

describe(`${LlmStepService.name}: spend limits`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let ledger: SpendRepository;

  beforeAll(async () => {
    setup = await setUpStepServices({ prices: { 'openai:priced-model': PRICE }, spendLimits: { daily: DAILY_LIMIT } });
    ledger = setup.get(SpendRepository);
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  const today = () => new Date().toISOString().slice(0, 10);

  async function recordedRun(
    userId: string,
    steps: number,
    budget?: NewRun['budget'],
  ): Promise<{ run: NewRun; step: ReturnType<typeof llmStep> }> {
    const step = llmStep({ model: 'priced-model', max_tokens: 1000 });
    const run = {
      ...newRun(
        userId,
        workflowDefinition(Array.from({ length: steps }, () => ({ ...step, uuid: randomUUID(), name: `s${randomUUID().slice(0, 6)}` }))),
      ),
      ...(budget ? { budget } : {}),
    };
    await setup.runs.create(run);
    return { run, step };
  }

  it('lets one call of three sent at once through a day that holds one worst case, and counts what it cost', async () => {
    const userId = newUserId();
    const { run, step } = await recordedRun(userId, 3);
    setup.model.script(reply.text('ok', { usage: USAGE, delayMs: 300 }));

    const outcomes = await Promise.allSettled(
      [0, 1, 2].map((position) => setup.llm.run(stepContext(run, position), step, activityScope())),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual(
      [
        expect.objectContaining({ code: 'SPEND_LIMIT_REACHED', details: expect.objectContaining({ period: 'day', limit: DAILY_LIMIT }) }),
        expect.objectContaining({ code: 'SPEND_LIMIT_REACHED' }),
      ],
    );
    expect(setup.model.requests).toHaveLength(1);
    const spend = await ledger.spendOf(userId, [today(), today().slice(0, 7)]);
    expect(spend.get(today())).toEqual({ spent: CALL_COST, reserved: 0 });
    expect(spend.get(today().slice(0, 7))).toEqual({ spent: CALL_COST, reserved: 0 });
  });

  it("holds a run's calls to its max_cost: of three sent at once one goes, and the run passes max_cost by at most one call", async () => {
    // $0.001: under one call's worst case (about $0.008), above one call's real cost ($0.0006).
    const { run, step } = await recordedRun(newUserId(), 5, { max_cost: 0.001 });
    const ledgerOf = async () =>
      (
        (await setup.get(DataSource).query('SELECT cost_spent, cost_reserved FROM workflow_runs WHERE uuid = ?', [run.uuid])) as {
          cost_spent: string;
          cost_reserved: string;
        }[]
      ).map((row) => ({ spent: Number(row.cost_spent), reserved: Number(row.cost_reserved) }))[0];
    setup.model.script(reply.text('ok', { usage: USAGE, delayMs: 300 }));

    const outcomes = await Promise.allSettled(
      [0, 1, 2].map((position) => setup.llm.run(stepContext(run, position), step, activityScope())),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual(
      [
        expect.objectContaining({ code: 'RUN_BUDGET_REACHED', details: expect.objectContaining({ max_cost: 0.001 }) }),
        expect.objectContaining({ code: 'RUN_BUDGET_REACHED' }),
      ],
    );
    expect(setup.model.requests).toHaveLength(1);
    await expect(ledgerOf()).resolves.toEqual({ spent: CALL_COST, reserved: 0 });

    // Settled at $0.0006, under max_cost: the next call goes, and takes the run past it (by less than its worst case).
    setup.model.script(reply.text('ok', { usage: USAGE }));
    await setup.llm.run(stepContext(run, 3), step, activityScope());
    await expect(ledgerOf()).resolves.toEqual({ spent: 2 * CALL_COST, reserved: 0 });
    // At max_cost: no call more, and nothing reserved by the refusal.
    await expect(setup.llm.run(stepContext(run, 4), step, activityScope())).rejects.toMatchObject({
      code: 'RUN_BUDGET_REACHED',
      details: { max_cost: 0.001, held: 2 * CALL_COST },
    });
    await expect(ledgerOf()).resolves.toEqual({ spent: 2 * CALL_COST, reserved: 0 });
    expect(setup.model.requests).toHaveLength(2);
  });

  it("shows a run paused on its user's spent day with the reason, and lets it go on when a later attempt finds room", async () => {
    const userId = newUserId();
    const { run, step } = await recordedRun(userId, 2);
    // Room for one worst case (about $0.008), not for a second one beside the first call's $0.0006.
    await ledger.setOwnLimits(userId, { daily: 0.0085, monthly: null });
    setup.model.script(reply.text('ok', { usage: USAGE }));
    await setup.llm.run(stepContext(run, 0), step, activityScope());

    await expect(setup.llm.run(stepContext(run, 1), step, activityScope())).rejects.toMatchObject({ code: 'SPEND_LIMIT_REACHED' });
    const paused = await setup.runs.findRun(userId, run.uuid);
    expect(paused).toMatchObject({
      status: 'awaiting_input',
      spend_pause: {
        code: 'SPEND_LIMIT_REACHED',
        period: 'day',
        limit: 0.0085,
        spent: CALL_COST,
        resets_at: expect.stringMatching(/T00:00:00.000Z$/),
      },
    });

    // The day resets (its ledger row starts again): Temporal's next attempt goes, and the run with it.
    await setup.get(DataSource).query('DELETE FROM user_spend WHERE user_id = ?', [userId]);
    setup.model.script(reply.text('ok', { usage: USAGE }));
    await setup.llm.run(stepContext(run, 1), step, activityScope());
    await expect(setup.runs.findRun(userId, run.uuid)).resolves.toMatchObject({ status: 'running', spend_pause: null });
    expect(setup.model.requests).toHaveLength(2);
  });

  it("refuses a start once the user's own lower daily limit is spent, with its code and reset time", async () => {
    const userId = newUserId();
    const { run, step } = await recordedRun(userId, 1);
    setup.model.script(reply.text('ok', { usage: USAGE }));
    await setup.llm.run(stepContext(run, 0), step, activityScope());
    await ledger.setOwnLimits(userId, { daily: CALL_COST, monthly: null });
    const definition = workflowDefinition([llmStep()]);
    await setup.get(WorkflowRepository).create(userId, definition, 'secret', noTools);

    const start = { userId, workflowUuid: definition.uuid, triggerOutput: {}, runUuid: randomUUID(), origin: 'manual' as const };
    await expect(setup.get(RunPreparer).prepare({ ...start, temporalWorkflowId: `run-${start.runUuid}` })).rejects.toMatchObject({
      code: 'SPEND_LIMIT_REACHED',
      details: { period: 'day', limit: CALL_COST, spent: CALL_COST, resets_at: expect.stringMatching(/T00:00:00.000Z$/) },
    });
    // A dry run costs nothing: it still starts.
    await expect(
      setup.get(RunPreparer).prepare({ ...start, runUuid: randomUUID(), temporalWorkflowId: `run-${randomUUID()}`, dryRun: true }),
    ).resolves.toMatchObject({ created: true });
  });

  describe('holds of calls whose worker died', () => {
    // A call's worst case here: about $0.008 (see DAILY_LIMIT).
    const WORST = 0.008;
    const terms = (callKey: string) => ({ callKey, ttlMs: 60_000 });
    const day = () => [{ period: today(), limit: DAILY_LIMIT }];
    const reservedToday = async (userId: string) => (await ledger.spendOf(userId, [today()])).get(today())!.reserved;
    const expire = (holdId: number) =>
      setup.get(DataSource).query('UPDATE spend_holds SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = ?', [holdId]);

    it("gives a dead call's hold back to the same call's next attempt at once, and to any call once it expired", async () => {
      const userId = newUserId();
      const dead = await ledger.reserve(userId, day(), WORST, terms('step-a:1'));
      expect(dead).toMatchObject({ reserved: true });

      // Another call finds the day held by the dead one; the dead call's own next attempt takes its hold back.
      await expect(ledger.reserve(userId, day(), WORST, terms('step-b:1'))).resolves.toMatchObject({ reserved: false, held: WORST });
      const again = await ledger.reserve(userId, day(), WORST, terms('step-a:1'));
      expect(again).toMatchObject({ reserved: true });
      expect(await reservedToday(userId)).toBe(WORST);

      // That attempt dies too; once its hold expired, another call's reservation gives it back.
      await expect(ledger.reserve(userId, day(), WORST, terms('step-b:1'))).resolves.toMatchObject({ reserved: false });
      await expire((again as { holdId: number }).holdId);
      const other = await ledger.reserve(userId, day(), WORST, terms('step-b:1'));
      expect(other).toMatchObject({ reserved: true });
      expect(await reservedToday(userId)).toBe(WORST);

      // A late settle of a hold already given back adds its cost and gives nothing back twice.
      await ledger.settle(userId, [today()], CALL_COST, { id: (again as { holdId: number }).holdId, reservedIn: [today()], amount: WORST });
      await expect(ledger.spendOf(userId, [today()])).resolves.toEqual(new Map([[today(), { spent: CALL_COST, reserved: WORST }]]));
      await ledger.settle(userId, [today()], CALL_COST, { id: (other as { holdId: number }).holdId, reservedIn: [today()], amount: WORST });
      await expect(ledger.spendOf(userId, [today()])).resolves.toEqual(new Map([[today(), { spent: 2 * CALL_COST, reserved: 0 }]]));
    });

    it("gives a run's max_cost hold back once it expired, so the run's next call goes", async () => {
      const { run, step } = await recordedRun(newUserId(), 1, { max_cost: 0.001 });
      const dead = await ledger.reserveForRun(run.uuid, WORST, terms('dead-step:1'));
      expect(dead).toMatchObject({ limited: true, reserved: true });
      await expect(setup.llm.run(stepContext(run, 0), step, activityScope())).rejects.toMatchObject({ code: 'RUN_BUDGET_REACHED' });

      await expire((dead as { holdId: number }).holdId);
      setup.model.script(reply.text('ok', { usage: USAGE }));
      await setup.llm.run(stepContext(run, 0), step, activityScope());

      const [ledgerRow] = (await setup
        .get(DataSource)
        .query('SELECT cost_spent, cost_reserved FROM workflow_runs WHERE uuid = ?', [run.uuid])) as {
        cost_spent: string;
        cost_reserved: string;
      }[];
      expect({ spent: Number(ledgerRow.cost_spent), reserved: Number(ledgerRow.cost_reserved) }).toEqual({ spent: CALL_COST, reserved: 0 });
    });

    it("lets a call made again after its worker died take back the dead attempt's hold in the user's day", async () => {
      const userId = newUserId();
      const { run, step } = await recordedRun(userId, 1);
      const context = stepContext(run, 0);
      // The first attempt reserved and died before it settled (its hold named by its step row and turn).
      await ledger.reserve(userId, day(), WORST, terms(`${context.instance_uuid}:1`));
      await ledger.reserve(userId, day(), 0.0015, terms('another-call:1'));

      setup.model.script(reply.text('ok', { usage: USAGE }));
      await setup.llm.run(context, step, activityScope());

      expect(setup.model.requests).toHaveLength(1);
      expect(await reservedToday(userId)).toBe(0.0015);
    });
  });

  describe(SpendRechecks.name, () => {
    /** The launcher's one door these use, recorded; any other is a failure. */
    class RecordingLauncher extends RunLauncher {
      readonly rechecked: string[] = [];
      recheckSpend(workflowId: string): Promise<void> {
        this.rechecked.push(workflowId);
        return Promise.resolve();
      }
      start = unexpectedDoor;
      cancel = unexpectedDoor;
      observe = unexpectedDoor;
      answer = unexpectedDoor;
      approveBudget = unexpectedDoor;
      sendMessage = unexpectedDoor;
    }
    const log = { log: () => undefined, warn: () => undefined, error: () => undefined };
    const pausedRunOf = async (userId: string) => {
      const { run } = await recordedRun(userId, 1);
      await ledger.pauseRunForSpend(run.uuid, { code: 'SPEND_LIMIT_REACHED', period: 'day', limit: 0.01, spent: 0.01, resets_at: 'x' });
      return run;
    };

    it("asks each of a user's paused runs to try again when their limits change, and every paused run of this period's spenders at a start", async () => {
      const spender = newUserId();
      const [first, second] = [await pausedRunOf(spender), await pausedRunOf(spender)];
      await ledger.settle(spender, [today(), today().slice(0, 7)], CALL_COST, null);
      // A run of a user with nothing spent this day or month cannot be paused on it: the start's pass skips them.
      const idle = await pausedRunOf(newUserId());
      const launcher = new RecordingLauncher();
      const sut = new SpendRechecks(ledger, launcher, 10, log);

      await expect(sut.forUser(spender)).resolves.toBe(2);
      expect([...launcher.rechecked].sort()).toEqual([first.temporal_workflow_id, second.temporal_workflow_id].sort());

      launcher.rechecked.length = 0;
      await sut.forEveryUser();
      expect(launcher.rechecked).toEqual(expect.arrayContaining([first.temporal_workflow_id, second.temporal_workflow_id]));
      expect(launcher.rechecked).not.toContain(idle.temporal_workflow_id);
    });
  });
});

function unexpectedDoor(): never {
  throw new Error('SpendRechecks used another door of the launcher');
}

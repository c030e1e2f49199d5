// A chain's LLM steps that run on in the activity of the one before them (issue #32): each on its own row and
// audit, handed back at a failure, at the time bound, at a cancel.
import type { ChainStepAhead, CustomLlmStep } from '@app/contracts';
import type { NewRun } from '@app/persistence';
import { runOn } from '../../../apps/worker/src/activities/chain-run-on';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe('runOn (a chain’s steps in one activity)', () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices();
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  const log = { warn: () => undefined };

  /** A recorded chain of `count` steps (their prompts `prompts` where given) whose first has run; the rest, as the workflow asks them to run on. */
  async function firstRan(count: number, prompts: (steps: CustomLlmStep[]) => string[] = () => []) {
    const steps = Array.from({ length: count }, (_, index) =>
      llmStep({ name: `step-${index}`, system_prompt: index ? 'Shorten it' : 'Summarise <<trigger_output>>' }),
    );
    prompts(steps).forEach((prompt, index) => (steps[index].system_prompt = prompt));
    const recorded: NewRun = newRun(newUserId(), workflowDefinition(steps), { topic: 'tides' });
    await setup.runs.create(recorded);
    const context = stepContext(recorded, 0);
    // Its end held, as the activity holds it for the next step's start.
    const { ref, end } = await setup.chainRunner.run(context, steps[0], activityScope(), null);
    const ahead: ChainStepAhead[] = steps.slice(1).map((step, index) => ({ step, instance_uuid: recorded.steps[index + 1].uuid }));
    return { first: { context, step: steps[0], ref, end }, ahead, rows: recorded.steps.map((row) => row.uuid) };
  }

  it('runs each step after the first on its own row, the output of the one before as its $previous_output', async () => {
    setup.model.script(reply.text('The tides turn twice a day.'), reply.text('Tides turn.'), reply.text('Turn.'));
    const { first, ahead, rows } = await firstRan(3);

    const ran = await runOn(setup.chainRunner, first, ahead, { scope: activityScope(), log });
    // The last one's end is handed back for the activity to write (with the run's end where the chain ends there).
    const lastBeforeItsEnd = await setup.rows.step(rows[2]);
    await setup.chainRunner.writeEnd(ran.held!);

    expect(ran.failed).toBeUndefined();
    expect(lastBeforeItsEnd).toMatchObject({ status: 'running' });
    expect(await Promise.all(rows.map((row) => setup.rows.step(row)))).toEqual([
      expect.objectContaining({ status: 'completed', output_id: first.ref.output_id }),
      expect.objectContaining({ status: 'completed', output_id: ran.ran_on![0].output_id }),
      expect.objectContaining({ status: 'completed', output_id: ran.ran_on![1].output_id }),
    ]);
    const [, second, third] = setup.model.requests.map((request) => request.body.messages);
    expect(second[1].content).toContain('The tides turn twice a day.');
    expect(third[1].content).toContain('Tides turn.');
    expect(await setup.rows.outputData(ran.ran_on![1].output_id)).toBe('Turn.');
  });

  it('gives a step the output of the one before while that waits to commit with its start: by name, and past the size kept in memory', async () => {
    const long = 'The tides turn twice a day. '.repeat(1_000);
    setup.model.script(reply.text(long), reply.text('Tides turn.'), reply.text('Turn.'));
    const { first, ahead } = await firstRan(3, (steps) => [
      'Summarise <<trigger_output>>',
      'Shorten it',
      `Polish <<step_output.${steps[1].uuid}>>`,
    ]);

    await runOn(setup.chainRunner, first, ahead, { scope: activityScope(), log });

    const [, second, third] = setup.model.requests.map((request) => request.body.messages);
    expect(long.length).toBeGreaterThan(16 * 1024);
    expect(second[1].content).toContain(long.trim());
    expect(third[0].content).toBe('Polish Tides turn.');
  });

  it('stops at a step that failed, its error handed back as its own activity would have failed, and runs nothing after it', async () => {
    setup.model.script(reply.text('Summary.'), reply.error(400));
    const { first, ahead, rows } = await firstRan(3);

    const ran = await runOn(setup.chainRunner, first, ahead, { scope: activityScope(), log });

    expect(ran.ran_on).toEqual([]);
    expect(ran.held).toMatchObject({ written: true });
    expect(ran.failed).toEqual({ message: expect.any(String), type: expect.stringMatching(/^Model_/), retryable: false });
    expect(setup.model.requests).toHaveLength(2);
    // The workflow fails it, or runs it again as its own activity: the failed attempt stays in its audit.
    expect(await setup.rows.step(rows[0])).toMatchObject({ status: 'completed', output_id: first.ref.output_id });
    expect(await setup.rows.step(rows[1])).toMatchObject({ status: 'running' });
    expect(await setup.rows.modelCalls(rows[1])).toEqual([expect.objectContaining({ attempt: 1, status: 'failed' })]);
    expect(await setup.rows.step(rows[2])).toMatchObject({ status: 'pending' });
  });

  it('hands back once its time is up, a step begun before it finished', async () => {
    setup.model.script(reply.text('Summary.'), reply.text('Short.'));
    const { first, ahead } = await firstRan(3);

    const ran = await runOn(setup.chainRunner, first, ahead.slice(0, 1), { scope: activityScope(), log, forMs: 60_000 });
    const none = await runOn(setup.chainRunner, { ...first, ref: ran.ran_on![0], step: ahead[0].step, end: ran.held }, ahead.slice(1), {
      scope: activityScope(),
      log,
      forMs: 0,
    });

    expect(ran.ran_on).toHaveLength(1);
    expect(none).toEqual({ ran_on: [], held: ran.held });
    expect(setup.model.requests).toHaveLength(2);
  });

  it('fails the step a cancel reached, as the workflow fails a cancelled step, and throws the cancel', async () => {
    setup.model.script(reply.text('Summary.'), reply.text('never heard', { delayMs: 5_000 }));
    const { first, ahead, rows } = await firstRan(3);
    const cancel = new AbortController();
    const scope = { ...activityScope(), signal: cancel.signal };

    const running = runOn(setup.chainRunner, first, ahead, { scope, log });
    await setup.model.waitForRequests(2);
    cancel.abort();

    await expect(running).rejects.toThrow();
    expect(await setup.rows.step(rows[1])).toMatchObject({ status: 'failed', error_message: 'Cancelled while running' });
    expect(await setup.rows.step(rows[2])).toMatchObject({ status: 'pending' });
  });
});

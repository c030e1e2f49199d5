// The opt-in response cache: an identical call of the same user within the step's TTL is answered from the
// audit (a hit, no provider request, cost 0); another user's, or one past the TTL, asks the provider.
import type { CustomLlmStep } from '@app/contracts';
import type { NewRun } from '@app/persistence';
import { LlmStepService } from '../../../apps/worker/src/execution/llm-step.service';
import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(`${LlmStepService.name}: response cache`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices({ prices: { 'openai:cached-model': { input: 1, output: 1, cached_input: 1 } } });
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  const step = llmStep({ model: 'cached-model', cache: { ttl_seconds: 60 } });

  /** One run of `step` for `userId` on the same trigger data, its LLM step run as its activity would: the output's text. */
  async function ran(userId: string, llm: CustomLlmStep = step): Promise<{ run: NewRun; text: unknown }> {
    const run = newRun(userId, workflowDefinition([llm]), { topic: 'tides' });
    await setup.runs.create(run);
    const { ref } = await setup.llm.run(stepContext(run, 0), llm, activityScope());
    return { run, text: await setup.rows.outputData(ref.output_id) };
  }

  const callOf = async (run: NewRun) =>
    (
      (await setup.db.query('SELECT uuid, cached_from, cost, total_tokens FROM model_calls WHERE run_uuid = ?', [run.uuid])) as {
        uuid: string;
        cached_from: string | null;
        cost: string;
        total_tokens: number;
      }[]
    )[0];

  it("answers the same user's identical call from the first within the TTL: one provider request for two runs", async () => {
    const userId = newUserId();
    setup.model.script(reply.text('The tides turn.', { usage: { prompt_tokens: 100, completion_tokens: 20 } }));

    const first = await ran(userId);
    const second = await ran(userId);

    expect(setup.model.requests).toHaveLength(1);
    expect(second.text).toBe('The tides turn.');
    const original = await callOf(first.run);
    expect(await callOf(second.run)).toEqual({
      uuid: expect.any(String),
      cached_from: original.uuid,
      cost: '0.000000000',
      total_tokens: 0,
    });
    expect(Number(original.cost)).toBeGreaterThan(0);
  });

  it("never serves another user's answer, nor one past the TTL, nor a step that does not opt in", async () => {
    const [owner, other] = [newUserId(), newUserId()];
    setup.model.script(reply.text('mine'), reply.text('theirs'), reply.text('fresh'), reply.text('uncached'));

    const first = await ran(owner);
    expect((await ran(other)).text).toBe('theirs');
    // The owner's answer, aged past the TTL.
    await setup.db.query('UPDATE model_calls SET finished_at = finished_at - INTERVAL 61 SECOND WHERE run_uuid = ?', [first.run.uuid]);
    expect((await ran(owner)).text).toBe('fresh');
    expect((await ran(owner, { ...step, cache: null })).text).toBe('uncached');

    expect(setup.model.requests).toHaveLength(4);
  });
});

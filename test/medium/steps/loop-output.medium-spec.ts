// A for_each's output gathers its iterations' outputs in one activity: past LOOP_OUTPUT_MAX_BYTES the step
// fails for good, before any of them is read, instead of taking the worker's heap with it. The setting is
// lowered to 3 MiB here (the default is 8): the bound is the operator's. Going on past failures, it lists
// the failed items from their rows, with the errors of LOOP_FAILED_ERRORS_LISTED of them (2 here, 100 by default).
import { randomUUID } from 'node:crypto';
import type { CustomLlmStep, ForEachLoop } from '@app/contracts';
import { OutputRepository } from '@app/persistence';
import { LoopService } from '../../../apps/worker/src/execution/loop.service';
import { StepError } from '../../../apps/worker/src/execution/step-error';
import { newOutput } from '../../../apps/worker/src/execution/step-output';
import { llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(`${LoopService.name}: a for_each's output`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: LoopService;

  beforeAll(async () => {
    setup = await setUpStepServices({ limits: { loopOutputMaxBytes: 3 * 2 ** 20, loopFailedErrorsListed: 2 } });
    sut = setup.loops;
  });
  afterAll(() => setup.close());

  /** A run of one for_each step whose iterations ended, each with `text` as its output or, where it is an Error, failed with its message. */
  async function loopAfterIterations(texts: (string | Error)[], loop: Partial<ForEachLoop> = {}) {
    const step: CustomLlmStep = llmStep({ loop: { type: 'for_each', input_path: '$.items', ...loop } });
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    await setup.steps.startStep(context.instance_uuid, { loop: step.loop });
    for (const [index, text] of texts.entries()) {
      const iteration = randomUUID();
      await setup.steps.openExecution(context.instance_uuid, iteration, index);
      if (text instanceof Error) await setup.steps.failStep(iteration, text.message);
      else await setup.steps.completeStep(iteration, newOutput({ ...context, instance_uuid: iteration }, text));
    }
    return { step, context };
  }

  it('going on past failures: lists every failed item from its row, the errors of the first LOOP_FAILED_ERRORS_LISTED cut to 500 characters', async () => {
    const long = 'e'.repeat(3000);
    const { step, context } = await loopAfterIterations(
      ['a', new Error(`item 1: ${long}`), 'c', new Error('item 3 broke'), new Error('item 4 broke'), 'f', new Error('item 6 broke')],
      { on_item_failure: 'continue', max_concurrency: 3 },
    );

    const ref = await sut.complete(context, step, 7, 'exhausted');

    const output = await setup.get(OutputRepository).findOutput(context.user_id, ref.output_id);
    expect(output!.raw_data).toEqual({
      items: ['a', null, 'c', null, null, 'f', null],
      failed: [
        { item_index: 1, error: `item 1: ${long}`.slice(0, 500) },
        { item_index: 3, error: 'item 3 broke' },
        { item_index: 4 },
        { item_index: 6 },
      ],
      failed_count: 4,
    });
    expect(await setup.rows.step(context.instance_uuid)).toMatchObject({ status: 'completed', output_id: ref.output_id });
    // Each failed item's row keeps its whole error.
    expect((await setup.steps.failedExecutions(context.instance_uuid, 10, 10_000)).map(({ error_message }) => error_message)).toEqual([
      `item 1: ${long}`,
      'item 3 broke',
      'item 4 broke',
      'item 6 broke',
    ]);
  });

  const mib = (fill: string) => fill.repeat(2 ** 20 - 2); // 1 MiB as JSON, with its quotes

  it("gathers the iterations' outputs in order while they stay under the bound", async () => {
    const { step, context } = await loopAfterIterations([mib('a'), mib('b')]);

    const ref = await sut.complete(context, step, 2, 'exhausted');

    expect(ref.size_bytes).toBe(2 * 2 ** 20 + 3); // the two strings, their comma, the brackets
    expect(await setup.rows.step(context.instance_uuid)).toMatchObject({ status: 'completed', output_id: ref.output_id });
  });

  it('fails for good past the bound, naming the step and the sizes, and stores no output', async () => {
    const count = 4;
    const { step, context } = await loopAfterIterations(Array.from({ length: count }, (_, index) => mib(String.fromCharCode(97 + index))));

    const failure = await sut.complete(context, step, count, 'exhausted').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(StepError);
    expect(failure).toMatchObject({
      type: 'LoopOutputTooLarge',
      message: `step "${step.name}": its iterations' outputs hold 4.0 MiB, more than the 3.0 MiB a for_each may gather into its output; each iteration's output stays readable`,
    });
    expect(await setup.rows.step(context.instance_uuid)).toMatchObject({ status: 'running', output_id: null });
  });
});

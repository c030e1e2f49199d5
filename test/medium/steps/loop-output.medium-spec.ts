// A for_each's output gathers its iterations' outputs in one activity: past LOOP_OUTPUT_MAX_BYTES the step
// fails for good, before any of them is read, instead of taking the worker's heap with it. The setting is
// lowered to 3 MiB here (the default is 8): the bound is the operator's.
import { randomUUID } from 'node:crypto';
import type { CustomLlmStep } from '@app/contracts';
import { LoopService } from '../../../apps/worker/src/execution/loop.service';
import { StepError } from '../../../apps/worker/src/execution/step-error';
import { newOutput } from '../../../apps/worker/src/execution/step-output';
import { llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(`${LoopService.name}: a for_each's output`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: LoopService;

  beforeAll(async () => {
    setup = await setUpStepServices({ limits: { loopOutputMaxBytes: 3 * 2 ** 20 } });
    sut = setup.loops;
  });
  afterAll(() => setup.close());

  /** A run of one for_each step whose iterations completed, each with `text` as its output. */
  async function loopAfterIterations(texts: string[]) {
    const step: CustomLlmStep = llmStep({ loop: { type: 'for_each', input_path: '$.items' } });
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    await setup.steps.startStep(context.instance_uuid, { loop: step.loop });
    for (const [index, text] of texts.entries()) {
      const iteration = randomUUID();
      await setup.steps.openExecution(context.instance_uuid, iteration, index);
      await setup.steps.completeStep(iteration, newOutput({ ...context, instance_uuid: iteration }, text));
    }
    return { step, context };
  }

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

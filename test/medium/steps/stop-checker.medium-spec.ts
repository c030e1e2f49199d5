import type { StopCondition } from '@app/contracts';
import { StopCheckerService } from '../../../apps/worker/src/execution/stop-checker.service';
import { GraphService } from '../../../apps/worker/src/execution/graph.service';
import { newOutput } from '../../../apps/worker/src/execution/step-output';
import { llmStep, newRun, newUserId, stepContext, stopCheckerStep, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(`${StopCheckerService.name} and ${GraphService.name}: conditions on earlier outputs`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: StopCheckerService;

  beforeAll(async () => {
    setup = await setUpStepServices();
    sut = setup.stopChecker;
  });
  afterAll(() => setup.close());

  /** A run whose first step completed with `data`; its second step is a stop checker on `condition`. */
  async function runAfterFirstStep(data: unknown, condition: Omit<StopCondition, 'step_definition_uuid'>) {
    const first = llmStep();
    const checker = stopCheckerStep([{ step_definition_uuid: first.uuid, ...condition }]);
    const run = newRun(newUserId(), workflowDefinition([first, checker]));
    await setup.runs.create(run);
    const output = newOutput(stepContext(run, 0), data);
    await setup.steps.completeStep(run.steps[0].uuid, output);
    return { checker, context: stepContext(run, 1), outputId: output.uuid };
  }

  it('stops the run when the condition holds, saying which and what it found', async () => {
    const { checker, context } = await runAfterFirstStep(
      { alerts: ['fire', 'flood'] },
      { extraction_json_path: '$.alerts.length', operator: 'greater_than', target_value: 1 },
    );

    const result = await sut.run(context, checker);

    expect(result).toEqual({ stopped: true, reason: `Stopped by "${checker.name}": $.alerts.length greater_than 1 (was 2)` });
    expect(await setup.rows.step(context.instance_uuid)).toMatchObject({ status: 'completed', output_id: null, attempts: 1 });
  });

  it('lets the run go on when the condition does not hold', async () => {
    const { checker, context } = await runAfterFirstStep(
      { status: 'working' },
      { extraction_json_path: '$.status', operator: 'equals', target_value: 'done' },
    );

    expect(await sut.run(context, checker)).toEqual({ stopped: false, reason: null });
    expect((await setup.rows.step(context.instance_uuid)).status).toBe('completed');
  });

  it("routes a graph on the edges whose data conditions the step's output meets", async () => {
    const { context, outputId } = await runAfterFirstStep(
      { score: 8 },
      { extraction_json_path: '$.score', operator: 'equals', target_value: 0 },
    );
    const edges = [
      { uuid: 'high', conditions: { path: '$.score', operator: 'greater_than', value: 5 } },
      { uuid: 'low', conditions: { path: '$.score', operator: 'less_than', value: 6 } },
    ];

    expect(await setup.graph.conditionsHeld(context.user_id, outputId, edges)).toEqual(['high']);
    expect(await setup.graph.conditionsHeld(newUserId(), outputId, edges)).toEqual([]);
  });
});

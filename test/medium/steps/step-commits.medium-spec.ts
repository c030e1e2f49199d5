import { reply } from '../../support/model-fake';
import { activityScope, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { countStatements } from '../support/statements';
import { setUpStepServices } from './step-services.setup';

// Each commit waits for MySQL's redo-log flush: what a step costs above bare Temporal is mostly its commits.
describe('The commits of a step', () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices();
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  it("LLM step: two, its start with its call's and the call's end with its output and close", async () => {
    const step = llmStep();
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    setup.model.script(reply.text('done'));

    const { statements } = await countStatements(setup.db, () => setup.llm.run(stepContext(run, 0), step, activityScope()));

    expect(statements.commits).toBe(2);
  });
});

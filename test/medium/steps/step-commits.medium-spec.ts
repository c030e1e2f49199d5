import { reply } from '../../support/model-fake';
import { activityScope, agentStep, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { countStatements } from '../support/statements';
import { setUpStepServices } from './step-services.setup';

// Each commit waits for MySQL's redo-log flush, each round trip for the network and both drivers: what a step
// costs above bare Temporal is mostly these. The audit's alone: a streamed answer's pieces (run_deltas, for the
// run's watchers) are written beside them, not waited for (MODEL_STREAMING off here).
describe('The commits of a step', () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;

  beforeAll(async () => {
    setup = await setUpStepServices({ modelStreaming: false });
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  it("LLM step: two, its start with its call's and the call's end with its output and close, each in one round trip", async () => {
    const step = llmStep();
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    setup.model.script(reply.text('done'));

    const { statements } = await countStatements(setup.db, setup.oneTrip, () => setup.llm.run(stepContext(run, 0), step, activityScope()));

    expect([statements.commits, statements.writeTrips]).toEqual([2, 2]);
  });

  it("agent round: two for the model turn (its call's start, its end with the answer) and two for the tool call, one round trip each", async () => {
    const step = agentStep({ system_prompt: 'Read <<trigger_output>>' });
    const run = newRun(newUserId(), workflowDefinition([step]), { city: 'Lyon' });
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    const { tools } = await setup.agent.start(context, step);
    setup.model.script(reply.toolCalls([{ name: 'get_output', arguments: { output_id: (run.trigger_output as { uuid: string }).uuid } }]));

    const turn = await countStatements(setup.db, setup.oneTrip, () => setup.agent.turn(context, step, tools, 1, 2, activityScope()));
    const call = await countStatements(setup.db, setup.oneTrip, () =>
      setup.toolCalls.call(context, step, turn.result.tool_calls[0], 3, activityScope()),
    );

    expect([turn.statements, call.statements].map(({ commits, writeTrips }) => [commits, writeTrips])).toEqual([
      [2, 2],
      [2, 2],
    ]);
  });

  it('folded agent round (a local turn running its short tool call): the same four commits, the call not reading the transcript again', async () => {
    const step = agentStep({ system_prompt: 'Read <<trigger_output>>' });
    const run = newRun(newUserId(), workflowDefinition([step]), { city: 'Lyon' });
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    const { tools, local_tools } = await setup.agent.start(context, step);
    setup.model.script(reply.toolCalls([{ name: 'get_output', arguments: { output_id: (run.trigger_output as { uuid: string }).uuid } }]));

    const round = await countStatements(setup.db, setup.oneTrip, () =>
      setup.agent.turn(context, step, tools, 1, 2, activityScope(), local_tools),
    );

    expect(round.result).toMatchObject({ conversation_length: 4, tool_calls_run: 1 });
    expect([round.statements.commits, round.statements.writeTrips]).toEqual([4, 4]);
    // No read of the message at the call's position: the turn just wrote the one before it.
    expect(round.statements.sent.filter((sql) => /JSON_EXTRACT\(s\.model_messages/.test(sql))).toEqual([]);
    expect(await setup.rows.messages(context.instance_uuid)).toEqual([
      expect.objectContaining({ role: 'system' }),
      expect.objectContaining({ role: 'user' }),
      expect.objectContaining({ role: 'assistant' }),
      expect.objectContaining({ role: 'tool', name: 'get_output' }),
    ]);
  });
});

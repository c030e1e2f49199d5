import { randomUUID } from 'node:crypto';
import { ToolRepository } from '@app/persistence';
import { runEnding } from '@app/runs';
import { runOn } from '../../../apps/worker/src/activities/chain-run-on';
import { reply } from '../../support/model-fake';
import { ToolServer } from '../../support/tool-server';
import { activityScope, agentStep, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { countStatements } from '../support/statements';
import { setUpStepServices } from './step-services.setup';

// Each commit waits for MySQL's redo-log flush, each round trip for the network and both drivers: what a step
// costs above bare Temporal is mostly these. The audit's alone: a streamed answer's pieces (run_deltas, for the
// run's watchers) are written beside them, not waited for (MODEL_STREAMING off here).
describe('The commits of a step', () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let tools: ToolServer;

  beforeAll(async () => {
    setup = await setUpStepServices({ modelStreaming: false });
    tools = await ToolServer.start({});
  });
  afterEach(() => setup.expectModelDone());
  afterAll(async () => {
    await tools.close();
    await setup.close();
  });

  /** A started run of one agent step whose one tool is a short HTTP tool (`lookup` of the tool server). */
  async function agentWithHttpTool() {
    const userId = newUserId();
    const tool = (await setup.get(ToolRepository).create({
      user_id: userId,
      name: `lookup_${randomUUID().slice(0, 8)}`,
      description: 'looks a city up',
      parameters: { type: 'object' },
      transport: 'http',
      endpoint_url: tools.url('lookup'),
      timeout_ms: 5_000,
      side_effect_free: false,
    }))!;
    const step = agentStep({ system_prompt: 'Read <<trigger_output>>', tools: [tool.name] });
    const run = newRun(userId, workflowDefinition([step]), { city: 'Lyon' });
    await setup.runs.create(run);
    return { tool, step, run, context: stepContext(run, 0) };
  }

  it("LLM step: two, its start with its call's and the call's end with its output and close, each in one round trip", async () => {
    const step = llmStep();
    const run = newRun(newUserId(), workflowDefinition([step]));
    await setup.runs.create(run);
    setup.model.script(reply.text('done'));

    const { statements } = await countStatements(setup.db, setup.oneTrip, () => setup.llm.run(stepContext(run, 0), step, activityScope()));

    expect([statements.commits, statements.writeTrips]).toEqual([2, 2]);
  });

  it("a chain's LLM steps sharing an activity: one a step, its start with the end of the step before, and the last one's end with the run's", async () => {
    const steps = [llmStep({ name: 'one' }), llmStep({ name: 'two' }), llmStep({ name: 'three' })];
    const run = newRun(newUserId(), workflowDefinition(steps));
    await setup.runs.create(run);
    setup.model.script(reply.text('one'), reply.text('two'), reply.text('three'));

    const { statements } = await countStatements(setup.db, setup.oneTrip, async () => {
      const context = stepContext(run, 0);
      const first = await setup.chainRunner.run(context, steps[0], activityScope(), null);
      const ahead = steps.slice(1).map((step, index) => ({ step, instance_uuid: run.steps[index + 1].uuid }));
      const { held } = await runOn(setup.chainRunner, { context, step: steps[0], ...first }, ahead, {
        scope: activityScope(),
        log: { warn: () => undefined },
      });
      // As the activity writes it where the chain ends there: with the run's end.
      await setup.llm.writeEnd(held!, runEnding(run.uuid, { status: 'completed', error_message: null }));
    });

    expect([statements.commits, statements.writeTrips]).toEqual([4, 4]);
    expect(await setup.rows.run(run.uuid)).toMatchObject({ status: 'completed' });
    expect(await Promise.all(run.steps.map((row) => setup.rows.step(row.uuid)))).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ status: 'completed', output_id: expect.any(String) })),
    );
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

  it("folded agent round (a local turn running its short HTTP tool call): three commits, the call's running row written with the turn's answer before the tool is called", async () => {
    const { tool, step, context } = await agentWithHttpTool();
    const { tools: specs, local_tools } = await setup.agent.start(context, step);
    // What the audit says of the call while the tool answers it (read on a connection of its own: committed rows only).
    let seenByTheTool: unknown;
    tools.setHandler('lookup', async () => {
      seenByTheTool = await setup.rows.toolCalls(context.instance_uuid);
      return { population: 522_000 };
    });
    setup.model.script(reply.toolCalls([{ name: tool.name, arguments: { city: 'Lyon' } }]));

    const round = await countStatements(setup.db, setup.oneTrip, () =>
      setup.agent.turn(context, step, specs, 1, 2, activityScope(), local_tools),
    );

    expect(round.result).toMatchObject({ conversation_length: 4, tool_calls_run: 1 });
    expect(seenByTheTool).toEqual([expect.objectContaining({ attempt: 1, status: 'running' })]);
    // The turn's running row; its end, its answer and the call's running row; the call's end and answer.
    expect([round.statements.commits, round.statements.writeTrips]).toEqual([3, 3]);
    // No read of the message at the call's position: the turn just wrote the one before it.
    expect(round.statements.sent.filter((sql) => /JSON_EXTRACT\(s\.model_messages/.test(sql))).toEqual([]);
    expect(await setup.rows.toolCalls(context.instance_uuid)).toEqual([expect.objectContaining({ attempt: 1, status: 'completed' })]);
    expect(await setup.rows.messages(context.instance_uuid)).toEqual([
      expect.objectContaining({ role: 'system' }),
      expect.objectContaining({ role: 'user' }),
      expect.objectContaining({ role: 'assistant' }),
      expect.objectContaining({ role: 'tool', name: tool.name, content: JSON.stringify({ population: 522_000 }) }),
    ]);
  });

  it("agent rounds sharing an activity: two commits a round after the first, the next turn's running row written with the tool's answer; one for the start, one for the step's and the run's end", async () => {
    const { tool, step, run, context } = await agentWithHttpTool();
    const begin = await countStatements(setup.db, setup.oneTrip, () => setup.agent.begin(context, step));
    const { start, known } = begin.result;
    const { tools: specs, local_tools } = start;
    tools.setHandler('lookup', () => ({ population: 522_000 }));
    // Each answer a call of its own id (one the model used before takes its own path: the call's next attempt).
    const asks = () => reply.toolCalls([{ name: tool.name, arguments: { city: 'Lyon' } }]);
    setup.model.script(asks(), asks(), reply.text('Lyon'));

    const rounds = await countStatements(setup.db, setup.oneTrip, () =>
      setup.agent.turns(context, step, specs, { turn: 1, lastTurn: 10, length: 2, known }, activityScope(), local_tools!),
    );
    const { transcript } = rounds.result;
    const completion = await countStatements(setup.db, setup.oneTrip, () =>
      setup.agent.complete(context, step, 7, activityScope(), { transcript, endsRun: true }),
    );

    // The step's start with its first messages; the turns after it never read the transcript this activity wrote.
    expect(begin.statements.commits).toBe(1);
    expect(rounds.statements.sent.filter((sql) => /^\s*SELECT[^]*model_messages/i.test(sql))).toEqual([]);
    expect(rounds.result.result).toMatchObject({ turn: 3, tool_calls: [], conversation_length: 7 });
    // Turn 1's running row; per round, the turn's end with its answer and the call's running row, then the call's
    // end with its answer and the next turn's running row; the last turn's end with its answer.
    expect([rounds.statements.commits, rounds.statements.writeTrips]).toEqual([6, 6]);
    expect((await setup.rows.modelCalls(context.instance_uuid)).map(({ turn, attempt, status }) => [turn, attempt, status])).toEqual([
      [1, 1, 'completed'],
      [2, 1, 'completed'],
      [3, 1, 'completed'],
    ]);
    // Each turn asked with the transcript as stored, the tool's answer before it included.
    const stored = await setup.rows.messages(context.instance_uuid);
    expect(setup.model.requests.map((request) => request.body.messages.length)).toEqual([2, 4, 6]);
    expect(setup.model.requests[2].body.messages.at(-1)).toMatchObject({ role: 'tool', content: stored[5].content });
    // Completed by the activity that asked its final answer: the transcript it wrote is not read back, and the
    // step's end and the run's go in one commit.
    expect(completion.result.runEnded).toBe(true);
    expect([completion.statements.commits, completion.statements.sent.filter((sql) => /^\s*SELECT/i.test(sql))]).toEqual([1, []]);
    expect(await setup.rows.step(context.instance_uuid)).toMatchObject({ status: 'completed' });
    expect(await setup.rows.run(run.uuid)).toMatchObject({ status: 'completed' });
  });

  it('agent start with a prompt of 9 MiB: its messages in a statement of their own, so no packet holds the prompt twice', async () => {
    const step = agentStep({ system_prompt: 'Read <<trigger_output.text>>', tools: [] });
    const text = 'x'.repeat(9 * 1024 * 1024);
    const run = newRun(newUserId(), workflowDefinition([step]), { text });
    await setup.runs.create(run);
    const context = stepContext(run, 0);

    const begin = await countStatements(setup.db, setup.oneTrip, () => setup.agent.begin(context, step));

    expect(begin.result.known?.[0].content).toContain(text);
    expect([begin.statements.commits, begin.statements.writeTrips]).toEqual([2, 2]);
    const [system] = await setup.rows.messages(context.instance_uuid);
    expect(system.content === begin.result.known![0].content).toBe(true); // not toEqual: a failed diff of 9 MiB would drown the report
  });
});

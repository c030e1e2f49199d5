import type { CustomAgentStep, StepContext, ToolCallRequest, ToolSpec } from '@app/contracts';
import { AgentStepService } from '../../../apps/worker/src/execution/agent-step.service';
import { ToolCallService } from '../../../apps/worker/src/execution/tool-call.service';
import { reply } from '../../support/model-fake';
import { activityScope, agentStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(`${AgentStepService.name} and ${ToolCallService.name}: an agent's tool loop`, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: AgentStepService;
  let toolCalls: ToolCallService;

  beforeAll(async () => {
    setup = await setUpStepServices();
    ({ agent: sut, toolCalls } = setup);
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  interface StartedAgent {
    context: StepContext;
    step: CustomAgentStep;
    tools: ToolSpec[];
    triggerOutputId: string;
  }

  /** A recorded run whose agent step has started: its conversation holds the system and user messages. */
  async function startedAgent(): Promise<StartedAgent> {
    const step = agentStep({ system_prompt: 'Read <<trigger_output>> with your tools' });
    const run = newRun(newUserId(), workflowDefinition([step]), { city: 'Lyon' });
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    const { tools, conversation_length } = await sut.start(context, step);
    expect(conversation_length).toBe(2);
    return { context, step, tools, triggerOutputId: (run.trigger_output as { uuid: string }).uuid };
  }

  /** The roles of the step's transcript, in order; a round is a model answer and its call's answer. */
  const rolesOf = async (agent: StartedAgent) => (await setup.rows.messages(agent.context.instance_uuid)).map((message) => message.role);
  const ROUND = ['assistant', 'tool'];

  /** The model's first turn asks for get_output on the trigger data. */
  async function firstTurnCallingGetOutput(agent: StartedAgent): Promise<ToolCallRequest> {
    setup.model.script(reply.toolCalls([{ name: 'get_output', arguments: { output_id: agent.triggerOutputId } }]));
    const turn = await sut.turn(agent.context, agent.step, agent.tools, 1, 2, activityScope());
    expect(turn).toMatchObject({ conversation_length: 3, tool_calls: [{ name: 'get_output' }] });
    return turn.tool_calls[0];
  }

  it('offers the model its tools and the trigger data by reference, and audits the turn', async () => {
    const agent = await startedAgent();

    await firstTurnCallingGetOutput(agent);

    const [request] = setup.model.requests;
    expect(request.body.tools?.map((tool) => tool.function.name)).toEqual(['get_output']);
    expect(request.body.messages[0].content).toContain(agent.triggerOutputId);
    expect(await setup.rows.modelCalls(agent.context.instance_uuid)).toEqual([
      expect.objectContaining({ turn: 1, attempt: 1, status: 'completed', total_tokens: 15 }),
    ]);
  });

  it('answers a retried turn from the stored answer without calling the model again', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);

    const retried = await sut.turn(agent.context, agent.step, agent.tools, 1, 2, activityScope(2));

    expect(retried).toMatchObject({ conversation_length: 3, tool_calls: [call], usage: { total_tokens: 15 } });
    expect(setup.model.requests).toHaveLength(1);
    expect(await setup.rows.modelCalls(agent.context.instance_uuid)).toHaveLength(1);
  });

  it('runs a tool call once, audited, its answer put into the conversation; a retry finds it there', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);

    const result = await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    const retried = await toolCalls.call(agent.context, agent.step, call, 3, activityScope(2));

    expect(result).toMatchObject({ status: 'completed' });
    expect(retried).toEqual(result);
    expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toEqual([
      expect.objectContaining({ tool_call_id: call.id, attempt: 1, status: 'completed' }),
    ]);
    const messages = await setup.rows.messages(agent.context.instance_uuid);
    expect(messages).toHaveLength(4);
    expect(messages[3]).toMatchObject({ role: 'tool', content: JSON.stringify({ city: 'Lyon' }) });
  });

  it('finds its start, turn and tool call again when they run again from their first attempt (local activities after a crash)', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    const answered = await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    const transcript = await setup.rows.messages(agent.context.instance_uuid);

    // A dead worker's local activities run again on the next one, counted from attempt 1 again.
    const start = await sut.start(agent.context, agent.step);
    const turn = await sut.turn(agent.context, agent.step, start.tools, 1, start.conversation_length, activityScope(1));
    const tool = await toolCalls.call(agent.context, agent.step, turn.tool_calls[0], 3, activityScope(1));

    expect(start).toMatchObject({ conversation_length: 2, local_tools: ['get_output'] });
    expect(turn).toMatchObject({ conversation_length: 3, tool_calls: [call] });
    expect(tool).toEqual(answered);
    expect(await setup.rows.messages(agent.context.instance_uuid)).toEqual(transcript);
    expect(setup.model.requests).toHaveLength(1);
    expect(await setup.rows.modelCalls(agent.context.instance_uuid)).toHaveLength(1);
    expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toHaveLength(1);
  });

  it('gives the model a failed answer for a tool the agent does not have, audited as failed', async () => {
    const agent = await startedAgent();
    await firstTurnCallingGetOutput(agent);

    const result = await toolCalls.call(
      agent.context,
      agent.step,
      { id: 'call_unknown', name: 'delete_everything', arguments: '{}' },
      3,
      activityScope(),
    );

    expect(result).toMatchObject({ status: 'failed' });
    expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_unknown',
        status: 'failed',
        error_message: expect.stringContaining('no tool named delete_everything'),
      }),
    ]);
  });

  it("completes with the final turn's answer as the output; a retried completion returns the same output", async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    setup.model.script(reply.text('Lyon it is', { usage: { prompt_tokens: 30, completion_tokens: 3 } }));
    const last = await sut.turn(agent.context, agent.step, agent.tools, 2, 4, activityScope());

    const { stored: output } = await sut.complete(agent.context, agent.step, last.conversation_length, activityScope());
    const { stored: retried } = await sut.complete(agent.context, agent.step, last.conversation_length, activityScope(2));

    expect(retried).toEqual(output);
    expect(await setup.rows.outputData(output.ref.output_id)).toBe('Lyon it is');
    expect(await setup.rows.step(agent.context.instance_uuid)).toMatchObject({
      status: 'completed',
      output_id: output.ref.output_id,
      total_tokens: 15 + 33,
    });
    expect(setup.model.requests).toHaveLength(2);
    // A chain's next step on this worker takes the agent's output from memory instead of reading it back.
    expect(setup.recent.take(agent.context.run_uuid, output.ref.output_id)).toMatchObject({
      uuid: output.ref.output_id,
      raw_data: 'Lyon it is',
    });
  });

  it("audits each turn by the count of messages it sent, the first ones of the step's conversation", async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    setup.model.script(reply.text('Lyon it is'));
    await sut.turn(agent.context, agent.step, agent.tools, 2, 4, activityScope());

    const counts = await setup.rows.sentMessageCounts(agent.context.instance_uuid);
    const conversation = await setup.rows.messages(agent.context.instance_uuid);

    expect(counts).toEqual([2, 4]);
    const asSent = (messages: { role: string; content: string | null }[]) => messages.map((message) => [message.role, message.content]);
    counts.forEach((count, i) => expect(asSent(conversation.slice(0, count))).toEqual(asSent(setup.model.requests[i].body.messages)));
  });

  it('answers a retried turn from the audit when its earlier attempt died before the transcript had the answer', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    await setup.steps.saveMessages(agent.context.instance_uuid, (await setup.rows.messages(agent.context.instance_uuid)).slice(0, 2));

    const retried = await sut.turn(agent.context, agent.step, agent.tools, 1, 2, activityScope(2));

    expect(retried).toMatchObject({ conversation_length: 3, tool_calls: [call], usage: { total_tokens: 15 } });
    expect(setup.model.requests).toHaveLength(1);
    expect(await setup.rows.messages(agent.context.instance_uuid)).toEqual([
      expect.anything(),
      expect.anything(),
      expect.objectContaining({ role: 'assistant', tool_calls: [call] }),
    ]);
  });

  it('answers a retried tool call from the audit when its earlier attempt died before the transcript had the answer', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    const result = await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    const answered = await setup.rows.messages(agent.context.instance_uuid);
    await setup.steps.saveMessages(agent.context.instance_uuid, answered.slice(0, 3));

    const retried = await toolCalls.call(agent.context, agent.step, call, 3, activityScope(2));

    expect(retried).toEqual(result);
    expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toEqual([expect.objectContaining({ attempt: 1, status: 'completed' })]);
    expect(await setup.rows.messages(agent.context.instance_uuid)).toEqual(answered);
  });

  it('puts an answer at its position when the transcript holds more (a reset run), dropping what followed', async () => {
    const agent = await startedAgent();
    const call = await firstTurnCallingGetOutput(agent);
    await toolCalls.call(agent.context, agent.step, call, 3, activityScope());
    const stale = { id: 'call_stale', name: 'get_output', arguments: '{}' };

    const result = await toolCalls.call(agent.context, agent.step, stale, 3, activityScope());

    expect(result).toMatchObject({ status: 'failed' });
    const messages = await setup.rows.messages(agent.context.instance_uuid);
    expect(messages).toHaveLength(4);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_stale' });
  });

  describe('a folded round (the turn runs its short tool calls)', () => {
    const folded = ['get_output'];

    it("runs a call whose id the model used in an earlier turn under the call's next attempt, the turn's answer kept", async () => {
      const agent = await startedAgent();
      const reused = {
        id: `call_reused_${agent.context.instance_uuid.slice(0, 8)}`,
        name: 'get_output',
        arguments: { output_id: agent.triggerOutputId },
      };
      setup.model.script(reply.toolCalls([reused]), reply.toolCalls([reused]));

      const first = await sut.turn(agent.context, agent.step, agent.tools, 1, 2, activityScope(), folded);
      const second = await sut.turn(agent.context, agent.step, agent.tools, 2, first.conversation_length, activityScope(), folded);

      expect([first, second]).toMatchObject([
        { conversation_length: 4, tool_calls_run: 1 },
        { conversation_length: 6, tool_calls_run: 1 },
      ]);
      expect(await setup.rows.modelCalls(agent.context.instance_uuid)).toEqual([
        expect.objectContaining({ turn: 1, status: 'completed' }),
        expect.objectContaining({ turn: 2, status: 'completed' }),
      ]);
      expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toEqual([
        expect.objectContaining({ tool_call_id: reused.id, attempt: 1, status: 'completed' }),
        expect.objectContaining({ tool_call_id: reused.id, attempt: 2, status: 'completed' }),
      ]);
      expect(await rolesOf(agent)).toEqual(['system', 'user', ...ROUND, ...ROUND]);
    });

    it('answers a call whose arguments are not JSON as failed, audited once, after the turn wrote its answer alone', async () => {
      const agent = await startedAgent();
      setup.model.script(reply.toolCalls([{ name: 'get_output', arguments: '{not json' }]));

      const turn = await sut.turn(agent.context, agent.step, agent.tools, 1, 2, activityScope(), folded);

      expect(turn).toMatchObject({ conversation_length: 4, tool_calls_run: 1 });
      expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toEqual([
        expect.objectContaining({ attempt: 1, status: 'failed', error_message: expect.stringContaining('not valid JSON') }),
      ]);
      expect((await setup.rows.messages(agent.context.instance_uuid))[3]).toMatchObject({ role: 'tool', name: 'get_output' });
    });
  });

  describe('rounds sharing one activity (turns of short calls one after another)', () => {
    const short = ['get_output'];
    const callsGetOutput = (agent: StartedAgent) =>
      reply.toolCalls([{ name: 'get_output', arguments: { output_id: agent.triggerOutputId } }]);
    /** One run of the shared activity from `from`, as its attempt `attempt`. */
    const runTurns = async (agent: StartedAgent, from: { turn: number; lastTurn: number; length: number; forMs?: number }, attempt = 1) =>
      (await sut.turns(agent.context, agent.step, agent.tools, from, activityScope(attempt), short)).result;
    /** [turn, attempt, status] of each model call the step's audit holds. */
    const auditedTurns = async (agent: StartedAgent) =>
      (await setup.rows.modelCalls(agent.context.instance_uuid)).map(({ turn, attempt, status }) => [turn, attempt, status]);

    it('goes from turn to turn while each calls only short tools, up to the final answer, each turn and call audited', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), callsGetOutput(agent), reply.text('Lyon it is'));

      const last = await runTurns(agent, { turn: 1, lastTurn: 10, length: 2 });

      expect(last).toMatchObject({ turn: 3, tool_calls: [], conversation_length: 7 });
      expect(await auditedTurns(agent)).toEqual([
        [1, 1, 'completed'],
        [2, 1, 'completed'],
        [3, 1, 'completed'],
      ]);
      expect((await setup.rows.toolCalls(agent.context.instance_uuid)).map((call) => call.status)).toEqual(['completed', 'completed']);
      expect(await rolesOf(agent)).toEqual(['system', 'user', ...ROUND, ...ROUND, 'assistant']);
    });

    it('sends each later turn the conversation as stored, the answers of the rounds before it included', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), callsGetOutput(agent), reply.text('Lyon it is'));

      await runTurns(agent, { turn: 1, lastTurn: 10, length: 2 });

      const stored = await setup.rows.messages(agent.context.instance_uuid);
      const sent = setup.model.requests.map((request) =>
        request.body.messages.map(({ role, content }) => ({ role, content: content ?? null })),
      );
      expect(sent.map((messages) => messages.length)).toEqual([2, 4, 6]);
      expect(sent[2]).toEqual(stored.slice(0, 6).map(({ role, content }) => ({ role, content: content ?? null })));
      // The tool's answer (the trigger data) reached the next turn, as the transcript holds it.
      expect(sent[2][3].content).toContain('Lyon');
    });

    it('hands back at last_turn, and at a call of a tool that is not short', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), callsGetOutput(agent), reply.toolCalls([{ name: 'search_web', arguments: {} }]));

      const atLast = await runTurns(agent, { turn: 1, lastTurn: 2, length: 2 });
      const atLong = await runTurns(agent, { turn: 3, lastTurn: 10, length: atLast.conversation_length });

      expect(atLast).toMatchObject({ turn: 2, tool_calls_run: 1, conversation_length: 6 });
      expect(atLong).toMatchObject({ turn: 3, tool_calls: [{ name: 'search_web' }], tool_calls_run: 0, conversation_length: 7 });
      expect(setup.model.requests).toHaveLength(3);
    });

    it('hands back once its time is up, after the round it was in, the next turn left to the next activity', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), reply.text('done'));

      const first = await runTurns(agent, { turn: 1, lastTurn: 10, length: 2, forMs: 0 });
      const next = await runTurns(agent, { turn: 2, lastTurn: 10, length: first.conversation_length, forMs: 0 });

      expect(first).toMatchObject({ turn: 1, tool_calls_run: 1, conversation_length: 4 });
      expect(next).toMatchObject({ turn: 2, tool_calls: [], conversation_length: 5 });
      expect(await rolesOf(agent)).toEqual(['system', 'user', ...ROUND, 'assistant']);
    });

    it('run again from its first turn (a retried activity), finds the rounds made before and asks only for the next', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), callsGetOutput(agent), reply.text('done'));
      await runTurns(agent, { turn: 1, lastTurn: 2, length: 2 });

      const retried = await runTurns(agent, { turn: 1, lastTurn: 10, length: 2 }, 2);

      expect(retried).toMatchObject({ turn: 3, tool_calls: [], conversation_length: 7 });
      expect(setup.model.requests).toHaveLength(3);
      // Turn 3 was never asked before: its first attempt, though the activity's is its second.
      expect(await auditedTurns(agent)).toEqual([
        [1, 1, 'completed'],
        [2, 1, 'completed'],
        [3, 1, 'completed'],
      ]);
      expect(await setup.rows.toolCalls(agent.context.instance_uuid)).toHaveLength(2);
    });

    it('asks a later turn that failed in an earlier run of the activity under its next attempt', async () => {
      const agent = await startedAgent();
      setup.model.script(callsGetOutput(agent), reply.error(500, { message: 'overloaded' }), reply.text('done'));
      const failed = runTurns(agent, { turn: 1, lastTurn: 10, length: 2 });
      await expect(failed).rejects.toThrow();

      const retried = await runTurns(agent, { turn: 1, lastTurn: 10, length: 2 }, 2);

      expect(retried).toMatchObject({ turn: 2, tool_calls: [], conversation_length: 5 });
      expect(await auditedTurns(agent)).toEqual([
        [1, 1, 'completed'],
        [2, 1, 'failed'],
        [2, 2, 'completed'],
      ]);
    });
  });
});

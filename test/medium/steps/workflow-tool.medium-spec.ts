// Workflow tools at the activity side: the agent is offered the pinned workflow under a safe name with its
// input_schema; a call's child run is recorded under a uuid drawn from the call, so a start retried (after
// a crash) finds the same run instead of recording a second; arguments the schema refuses are answered as
// the call's failure with no child; a child that did not complete is the call's failed answer, naming it.
// A graph's tool executor runs its caller's call the same way: the answer in the caller's transcript, the
// audit and the child run the executor's, and the caller's next execution is offered the tool again.
import { randomUUID } from 'node:crypto';
import type { ToolExecutorStep } from '@app/contracts';
import { ToolExecutorService } from '../../../apps/worker/src/execution/tool-executor.service';
import { WorkflowToolService } from '../../../apps/worker/src/execution/workflow-tool.service';
import { reply } from '../../support/model-fake';
import { activityScope, agentStep, llmStep, newRun, newUserId, stepContext, workflowDefinition } from '../support/fixtures';
import { setUpStepServices } from './step-services.setup';

describe(WorkflowToolService.name, () => {
  let setup: Awaited<ReturnType<typeof setUpStepServices>>;
  let sut: WorkflowToolService;
  const CITY_SCHEMA = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };

  beforeAll(async () => {
    setup = await setUpStepServices();
    sut = setup.get(WorkflowToolService);
  });
  afterEach(() => setup.expectModelDone());
  afterAll(() => setup.close());

  /** An agent whose first turn calls the workflow tool with `args`; `executor`: a tool executor after it in the run. */
  async function agentCalling(args: unknown, executor?: ToolExecutorStep) {
    const child = workflowDefinition([llmStep()], {
      name: 'Forecast city!',
      description: 'The sky over a city',
      input_schema: CITY_SCHEMA,
    });
    const step = agentStep({ tools: [`workflow:${child.uuid}`] });
    const steps = executor ? [step, executor] : [step];
    const run = newRun(newUserId(), { ...workflowDefinition(steps), sub_workflows: { [child.uuid]: child } });
    await setup.runs.create(run);
    const context = stepContext(run, 0);
    const start = await setup.agent.start(context, step);
    setup.model.script(reply.toolCalls([{ name: 'Forecast_city', arguments: args }]));
    const turn = await setup.agent.turn(context, step, start.tools, 1, start.conversation_length, activityScope());
    return { child, step, run, context, start, call: turn.tool_calls[0] };
  }

  it('offers the pinned workflow by a safe name with its schema, and records one child run however often the start runs', async () => {
    const { child, step, run, context, start, call } = await agentCalling({ city: 'Lyon' });

    const first = await sut.start(context, call, { position: 3 }, child.uuid, {
      parentStepUuid: step.uuid,
      depth: 1,
      scope: activityScope(),
    });
    const retried = await sut.start(context, call, { position: 3 }, child.uuid, {
      parentStepUuid: step.uuid,
      depth: 1,
      scope: activityScope(2),
    });

    expect(start.workflow_tools).toEqual({ Forecast_city: child.uuid });
    expect(start.tools).toContainEqual({ name: 'Forecast_city', description: 'The sky over a city', parameters: CITY_SCHEMA });
    if (!('child' in first) || !('child' in retried)) throw new Error('expected a child run to start');
    expect(retried.child.run_uuid).toBe(first.child.run_uuid);
    expect(first.child).toMatchObject({ depth: 1 });
    expect(await setup.rows.count('workflow_runs', run.user_id)).toBe(2);
    expect(await setup.runs.findRun(run.user_id, first.child.run_uuid)).toMatchObject({
      workflow_uuid: child.uuid,
      parent_run_uuid: run.uuid,
      parent_step_uuid: step.uuid,
    });
  });

  it('answers arguments the schema refuses as the call’s failure, with no child run', async () => {
    const { child, step, run, context, call } = await agentCalling({ town: 'Lyon' });

    const started = await sut.start(context, call, { position: 3 }, child.uuid, {
      parentStepUuid: step.uuid,
      depth: 1,
      scope: activityScope(),
    });

    expect(started).toEqual({ answered: expect.objectContaining({ status: 'failed' }) });
    expect(await setup.rows.count('workflow_runs', run.user_id)).toBe(1);
    expect(await setup.rows.toolCalls(context.instance_uuid)).toEqual([
      expect.objectContaining({ tool_call_id: call.id, status: 'failed', error_message: expect.stringContaining('input_schema') }),
    ]);
  });

  it('a child that did not complete is the call’s failed answer naming its run, audited once however often it is read', async () => {
    const { child, step, context, call } = await agentCalling({ city: 'Lyon' });
    const started = await sut.start(context, call, { position: 3 }, child.uuid, {
      parentStepUuid: step.uuid,
      depth: 1,
      scope: activityScope(),
    });
    if (!('child' in started)) throw new Error('expected a child run to start');

    const answer = await sut.complete(context, call, { position: 3 }, started.child.run_uuid, started.audit_attempt, activityScope());
    const again = await sut.complete(context, call, { position: 3 }, started.child.run_uuid, started.audit_attempt, activityScope(2));

    expect(answer.status).toBe('failed');
    expect(again).toEqual(answer);
    const messages = await setup.rows.messages(context.instance_uuid);
    expect(JSON.parse(messages[3].content ?? 'null')).toEqual({
      run_uuid: started.child.run_uuid,
      error: expect.stringContaining('ended'),
    });
    expect(await setup.rows.toolCalls(context.instance_uuid)).toEqual([
      expect.objectContaining({ tool_call_id: call.id, attempt: 1, status: 'failed' }),
    ]);
  });

  it('run by a tool executor: the answer in the caller’s transcript, the audit and the child the executor’s, the tool offered again', async () => {
    const executor: ToolExecutorStep = { uuid: randomUUID(), type: 'tool_executor', name: 'tools', description: '' };
    const { child, step, run, context, call } = await agentCalling({ city: 'Lyon' }, executor);
    const executing = stepContext(run, 1);
    const at = { position: 3, conversation_uuid: context.instance_uuid };

    const started = await sut.start(executing, call, at, child.uuid, { parentStepUuid: executor.uuid, depth: 1, scope: activityScope() });
    if (!('child' in started)) throw new Error('expected a child run to start');
    const answer = await sut.complete(executing, call, at, started.child.run_uuid, started.audit_attempt, activityScope());

    expect(answer.status).toBe('failed');
    expect(await setup.runs.findRun(run.user_id, started.child.run_uuid)).toMatchObject({
      parent_run_uuid: run.uuid,
      parent_step_uuid: executor.uuid,
    });
    const messages = await setup.rows.messages(context.instance_uuid);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: call.id });
    expect(JSON.parse(messages[3].content ?? 'null')).toMatchObject({ run_uuid: started.child.run_uuid });
    expect(await setup.rows.messages(executing.instance_uuid)).toEqual([]);
    expect(await setup.rows.toolCalls(executing.instance_uuid)).toEqual([
      expect.objectContaining({ tool_call_id: call.id, attempt: 1, status: 'failed' }),
    ]);
    expect(await setup.rows.toolCalls(context.instance_uuid)).toEqual([]);
    // The caller's next execution (on its own row in a graph; the caller's row stands in here) goes on with it.
    const continued = await setup
      .get(ToolExecutorService)
      .continueAgent(context, step, { instance_uuid: context.instance_uuid, conversation_length: 4 });
    expect(continued.workflow_tools).toEqual({ Forecast_city: child.uuid });
    expect(continued.tools).toContainEqual({ name: 'Forecast_city', description: 'The sky over a city', parameters: CITY_SCHEMA });
  });
});

// The run tables' repositories against the real MySQL, without Temporal or the apps: one run through its
// life as the worker's activities write it, read back through each repository and its mapper.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { FinalStatus } from '@app/contracts';
import {
  createDataSource,
  OneTripPool,
  TypeormCallAuditRepository,
  TypeormConversationRepository,
  TypeormOutputRepository,
  TypeormRunRepository,
  TypeormStepRepository,
  type NewOutput,
} from '@app/persistence';
import { endRun } from './run-fixtures';

describe('Run repositories', () => {
  let dataSource: DataSource;
  let oneTrip: OneTripPool;
  let runs: TypeormRunRepository;
  let steps: TypeormStepRepository;
  let outputs: TypeormOutputRepository;
  let calls: TypeormCallAuditRepository;
  let conversations: TypeormConversationRepository;
  const userId = `repos-${randomUUID()}`;

  beforeAll(async () => {
    dataSource = await createDataSource(process.env.DATABASE_URL!).initialize();
    oneTrip = OneTripPool.open(process.env.DATABASE_URL!, 4);
    [runs, steps, outputs, calls, conversations] = [
      new TypeormRunRepository(dataSource, oneTrip),
      new TypeormStepRepository(dataSource, oneTrip),
      new TypeormOutputRepository(dataSource),
      new TypeormCallAuditRepository(dataSource, oneTrip),
      new TypeormConversationRepository(dataSource),
    ];
  });
  afterAll(() => Promise.all([dataSource.destroy(), oneTrip.close()]));

  async function newWorkflow(): Promise<string> {
    const uuid = randomUUID();
    await dataSource.query("INSERT INTO workflows (uuid, user_id, name, description, steps) VALUES (?, ?, 'repos', '', '[]')", [
      uuid,
      userId,
    ]);
    return uuid;
  }

  async function newRun(workflowUuid: string): Promise<{ runUuid: string; instance: string }> {
    const runUuid = randomUUID();
    const instance = randomUUID();
    const trigger = { uuid: randomUUID(), raw_data: { hello: 'world' }, summary: 'hello', markdown_representation: null, size_bytes: 17 };
    const step = { uuid: instance, step_definition_uuid: randomUUID(), step_name: 'one', step_type: 'custom_llm' };
    expect(
      await runs.create({
        uuid: runUuid,
        user_id: userId,
        workflow_uuid: workflowUuid,
        workflow_name: 'repos',
        definition: { steps: [] },
        temporal_workflow_id: `medium-${runUuid}`,
        schedule_id: null,
        trigger_output: trigger,
        steps: [step],
      }),
    ).toBe(true);
    return { runUuid, instance };
  }

  const outputFor = (runUuid: string, instance: string): NewOutput => ({
    uuid: randomUUID(),
    run_uuid: runUuid,
    user_id: userId,
    step_instance_uuid: instance,
    raw_data: { answer: 42 },
    summary: '42',
    markdown_representation: '42',
    size_bytes: 13,
  });

  it('records a step, its model call and its output, and reads each back as a record of its own shape', async () => {
    const { runUuid, instance } = await newRun(await newWorkflow());
    await steps.startStep(instance, { system_prompt: 'Answer' });
    const call = {
      run_uuid: runUuid,
      step_instance_uuid: instance,
      turn: 1,
      attempt: 1,
      provider: 'openai',
      model: 'm',
      request_hash: null,
      request: { message_count: 1 },
      started_at: new Date(),
      cached_tokens: 0,
      cost: null,
      cached_from: null,
    };
    await calls.recordModelCall({
      ...call,
      status: 'running',
      error_message: null,
      response: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      duration_ms: null,
      finished_at: null,
    });
    await calls.recordModelCall({
      ...call,
      status: 'completed',
      error_message: null,
      response: { content: '42' },
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      duration_ms: 3,
      finished_at: new Date(),
    });
    const output = outputFor(runUuid, instance);
    await steps.completeStep(instance, output, { messages: [{ role: 'user', content: 'Answer' }] });

    expect(await calls.completedModelCall(instance, 1)).toMatchObject({
      run_uuid: runUuid,
      status: 'completed',
      response: { content: '42' },
      total_tokens: 7,
    });
    expect(await calls.tokensUsed(runUuid)).toBe(7);
    const step = await steps.instance(instance);
    expect(step).toMatchObject({
      status: 'completed',
      output_id: output.uuid,
      total_tokens: 7,
      attempts: 1,
      messages: [{ role: 'user', content: 'Answer' }],
    });
    expect(step).not.toHaveProperty('user_id');
    expect(await outputs.findOutput(userId, output.uuid)).toEqual({ ...output, created_at: expect.any(Date) });
    expect(await outputs.findOutput('someone-else', output.uuid)).toBeNull();
    expect(await outputs.outputOfStep(runUuid, step!.step_definition_uuid)).toMatchObject({ uuid: output.uuid });
    expect(await outputs.triggerOutput(runUuid)).toMatchObject({ raw_data: { hello: 'world' }, step_instance_uuid: null });

    const run = await runs.find(userId, runUuid);
    expect(run).toMatchObject({ status: 'running', trigger_output: { summary: 'hello' }, resumed_by: [] });
    expect(run!.steps[0].model_calls.map((recorded) => [recorded.run_uuid, recorded.status])).toEqual([[runUuid, 'completed']]);
    expect(run).not.toHaveProperty('updated_at');
  });

  it('keeps a conversation by position and moves the run between awaiting_input and running', async () => {
    const { runUuid } = await newRun(await newWorkflow());
    await conversations.setConversationStatus(runUuid, 'awaiting_input');
    await conversations.putConversationMessage(runUuid, 1, { role: 'assistant', content: 'hi', turn: 1, at: 'later' });
    await conversations.putConversationMessage(runUuid, 0, { role: 'user', content: 'hello', turn: 1, at: 'now' });
    expect((await conversations.conversation(runUuid)).map((message) => message.content)).toEqual(['hello', 'hi']);
    expect((await runs.findRun(userId, runUuid))?.status).toBe('awaiting_input');
    await conversations.setConversationStatus(runUuid, 'running');
    expect((await runs.findRun(userId, runUuid))?.status).toBe('running');
  });

  it.each<[FinalStatus, { successful_runs: number; failed_runs: number }]>([
    ['completed', { successful_runs: 1, failed_runs: 0 }],
    ['stopped', { successful_runs: 1, failed_runs: 0 }],
    ['partial_success', { successful_runs: 0, failed_runs: 1 }],
    ['failed', { successful_runs: 0, failed_runs: 1 }],
    ['cancelled', { successful_runs: 0, failed_runs: 0 }],
  ])('ends a run %s once, counting it on its workflow as %j', async (status, counters) => {
    const workflowUuid = await newWorkflow();
    const { runUuid, instance } = await newRun(workflowUuid);
    expect(await endRun(runs, runUuid, status, null)).toBe(true);
    expect(await endRun(runs, runUuid, status, null)).toBe(false);
    const [counted] = await dataSource.query('SELECT total_runs, successful_runs, failed_runs FROM workflows WHERE uuid = ?', [
      workflowUuid,
    ]);
    expect(counted).toEqual({ total_runs: 1, ...counters });
    expect((await steps.instance(instance))?.status).toBe('skipped');
  });
});

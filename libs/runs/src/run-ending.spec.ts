import type { StepStatus } from '@app/contracts';
import type { ModelCallRecord, RunWithSteps, StepWithExecutions } from '@app/persistence';
import {
  asEnded,
  endOfExecution,
  interruptedEnding,
  NO_EXECUTION,
  runEnding,
  START_GRACE_MS,
  startableByApi,
  unrecordedEnd,
} from './run-ending';

const started = new Date('2026-01-01T00:00:00Z');
const at = new Date('2026-01-01T00:01:00Z');
const tokens = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost: 0 };

function call(status: ModelCallRecord['status'], total: number): ModelCallRecord {
  return {
    uuid: `call-${total}`,
    run_uuid: 'run',
    step_instance_uuid: 'step',
    turn: 1,
    attempt: 1,
    provider: 'openai',
    model: 'm',
    request_hash: null,
    status,
    error_message: null,
    request: {},
    response: null,
    prompt_tokens: total - 1,
    completion_tokens: 1,
    total_tokens: total,
    cached_tokens: 0,
    cost: null,
    cached_from: null,
    duration_ms: 1,
    started_at: started,
    finished_at: null,
  };
}

function step(uuid: string, status: StepStatus, fields: Partial<StepWithExecutions> = {}): StepWithExecutions {
  return {
    uuid,
    run_uuid: 'run',
    step_definition_uuid: `def-${uuid}`,
    step_name: uuid,
    step_type: 'custom_llm',
    position: 0,
    status,
    input_data: null,
    messages: null,
    output_id: null,
    carried_from_run_uuid: null,
    error_message: null,
    attempts: 1,
    duration_ms: null,
    started_at: status === 'pending' ? null : started,
    finished_at: null,
    parent_instance_uuid: null,
    execution_index: null,
    loop_state: null,
    ...tokens,
    output: null,
    model_calls: [],
    tool_calls: [],
    executions: [],
    execution_count: 0,
    ...fields,
  };
}

function run(steps: StepWithExecutions[], fields: Partial<RunWithSteps> = {}): RunWithSteps {
  return {
    uuid: 'run',
    user_id: 'user',
    workflow_uuid: 'wf',
    workflow_name: 'wf',
    workflow_version: 1,
    status: 'running',
    definition: {},
    trigger_output_id: null,
    temporal_workflow_id: 'run-run',
    schedule_id: null,
    parent_run_uuid: null,
    parent_step_uuid: null,
    resumed_from_step_uuid: null,
    dry_run: false,
    budget: null,
    spend_pause: null,
    error_message: null,
    notification: null,
    tool_drift: null,
    replay_of: null,
    replay_offline: false,
    ...tokens,
    started_at: started,
    finished_at: null,
    created_at: started,
    trigger_output: null,
    resumed_by: [],
    children: [],
    steps,
    ...fields,
  };
}

describe(runEnding.name, () => {
  it('skips the steps not reached, closes the calls in flight, and counts the run on its workflow by outcome', () => {
    expect(runEnding('run', { status: 'completed', error_message: null })).toEqual({
      run_uuid: 'run',
      status: 'completed',
      error_message: null,
      guard_rail: null,
      failed_steps: [],
      skipped_from: ['pending', 'running', 'awaiting_input'],
      interrupted_calls: 'Interrupted: the run ended before this attempt finished',
      counter: 'successful_runs',
    });
    const rail = { rail: 'max_steps' as const, step_uuid: 'b', step_name: 'b' };
    expect(runEnding('run', { status: 'failed', error_message: 'Guard max_steps reached', guard_rail: rail }).guard_rail).toEqual(rail);
    expect(
      ['stopped', 'partial_success', 'failed', 'cancelled'].map(
        (status) => runEnding('run', { status: status as 'failed', error_message: 'x' }).counter,
      ),
    ).toEqual(['successful_runs', 'failed_runs', 'failed_runs', null]);
  });
});

describe(interruptedEnding.name, () => {
  it('fails the steps its execution was in, as interrupted, before skipping the rest', () => {
    const ending = interruptedEnding(
      run([step('done', 'completed'), step('slow', 'running'), step('waiting', 'awaiting_input'), step('next', 'pending')]),
      { status: 'failed', error_message: 'Terminated in Temporal: stop' },
    );
    expect(ending.failed_steps).toEqual([
      { instance_uuid: 'slow', error_message: 'Interrupted: Terminated in Temporal: stop' },
      { instance_uuid: 'waiting', error_message: 'Interrupted: Terminated in Temporal: stop' },
    ]);
    expect(ending).toMatchObject({
      status: 'failed',
      error_message: 'Terminated in Temporal: stop',
      counter: 'failed_runs',
      skipped_from: ['pending', 'running', 'awaiting_input'],
    });
  });
});

describe(endOfExecution.name, () => {
  it('reads each way an execution closes as an end of the run', () => {
    expect(endOfExecution({ state: 'closed', closed: 'completed', result: { status: 'stopped', error_message: null } })).toEqual({
      status: 'stopped',
      error_message: null,
    });
    expect(endOfExecution({ state: 'closed', closed: 'completed', result: { status: 'running', error_message: null } })).toEqual({
      status: 'failed',
      error_message: null,
    });
    expect(endOfExecution({ state: 'closed', closed: 'cancelled' })).toEqual({
      status: 'cancelled',
      error_message: 'Cancelled in Temporal',
    });
    expect(endOfExecution({ state: 'closed', closed: 'timed_out' })).toEqual({
      status: 'failed',
      error_message: 'The Temporal execution timed out',
    });
    expect(endOfExecution({ state: 'closed', closed: 'terminated', failure: 'operator' })).toEqual({
      status: 'failed',
      error_message: 'Terminated in Temporal: operator',
    });
    expect(endOfExecution({ state: 'closed', closed: 'failed', failure: 'boom' })).toEqual({
      status: 'failed',
      error_message: 'The Temporal execution failed: boom',
    });
  });
});

describe(unrecordedEnd.name, () => {
  const terminated = { state: 'closed', closed: 'terminated', failure: 'operator' } as const;

  it('finds none for a run that ended on its own, or whose execution runs', () => {
    expect(unrecordedEnd(run([], { status: 'completed' }), terminated, at)).toBeNull();
    expect(unrecordedEnd(run([]), { state: 'running' }, at)).toBeNull();
  });

  it("gives a closed execution's end to a run in flight, waiting ones included", () => {
    expect(unrecordedEnd(run([], { status: 'awaiting_input' }), terminated, at)).toEqual({
      status: 'failed',
      error_message: 'Terminated in Temporal: operator',
    });
  });

  it('leaves a run without an execution alone while the API may still be starting it', () => {
    const fresh = run([], { created_at: new Date(at.getTime() - START_GRACE_MS + 1) });
    expect(unrecordedEnd(fresh, { state: 'missing' }, at)).toBeNull();
    expect(unrecordedEnd({ ...fresh, created_at: new Date(at.getTime() - START_GRACE_MS) }, { state: 'missing' }, at)).toEqual(
      NO_EXECUTION,
    );
  });
});

describe(startableByApi.name, () => {
  it('is a running run under the execution id the API gives (not a scheduled or waiting one)', () => {
    expect(
      [run([]), run([], { temporal_workflow_id: 'scheduled-s-1' }), run([], { status: 'awaiting_input' })].map(startableByApi),
    ).toEqual([true, false, false]);
  });
});

describe(asEnded.name, () => {
  it('reads the run as the ending will write it: its status, the interrupted steps failed, the rest skipped, the tokens of its completed calls', () => {
    const loop = step('loop', 'running', {
      model_calls: [call('completed', 10)],
      executions: [
        step('loop-0', 'completed', { model_calls: [call('completed', 20)] }),
        step('loop-1', 'running', { model_calls: [call('running', 99)] }),
      ],
    });
    const ended = asEnded(
      run([step('done', 'completed', { model_calls: [call('completed', 5), call('failed', 7)] }), loop, step('next', 'pending')]),
      { status: 'failed', error_message: 'Terminated in Temporal: stop' },
      at,
    );

    expect(ended).toMatchObject({
      status: 'failed',
      error_message: 'Terminated in Temporal: stop',
      finished_at: at,
      total_tokens: 35,
      prompt_tokens: 32,
      completion_tokens: 3,
    });
    expect(ended.steps.map((each) => [each.uuid, each.status, each.error_message])).toEqual([
      ['done', 'completed', null],
      ['loop', 'failed', 'Interrupted: Terminated in Temporal: stop'],
      ['next', 'skipped', null],
    ]);
    expect(ended.steps[1]).toMatchObject({ total_tokens: 30, finished_at: at, duration_ms: 60_000 });
    expect(ended.steps[1].executions.map((each) => each.status)).toEqual(['completed', 'skipped']);
  });
});

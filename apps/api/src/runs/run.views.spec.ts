import type { LoopState, StepWithExecutions } from '@app/persistence';
import { loopView } from './run.views';

const at = new Date('2026-01-01T00:00:00Z');

function row(uuid: string, fields: Partial<StepWithExecutions> = {}): StepWithExecutions {
  return {
    uuid,
    run_uuid: 'run',
    step_definition_uuid: 'step',
    step_name: 'each',
    step_type: 'custom_llm',
    position: 0,
    status: 'completed',
    input_data: null,
    messages: null,
    output_id: null,
    carried_from_run_uuid: null,
    error_message: null,
    attempts: 1,
    duration_ms: 5,
    started_at: at,
    finished_at: at,
    parent_instance_uuid: null,
    execution_index: null,
    loop_state: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cost: 0,
    output: null,
    model_calls: [],
    tool_calls: [],
    executions: [],
    execution_count: 0,
    ...fields,
  };
}

const forEach = (iterations: number): LoopState => ({ type: 'for_each', iterations, stopped_by: 'exhausted' });
const iterationsOf = (n: number, parent: string) =>
  Array.from({ length: n }, (_, i) => row(`${parent}-${i}`, { parent_instance_uuid: parent, execution_index: i }));

describe(loopView.name, () => {
  it('shows nothing for a step with no loop and nothing beneath it', () => {
    expect(loopView(row('plain'))).toEqual({});
  });

  it("keeps a chain loop's iterations in the plain step shape", () => {
    const view = loopView(row('loop', { loop_state: forEach(2), executions: iterationsOf(2, 'loop'), execution_count: 2 }));
    expect(view).toMatchObject({ loop: forEach(2), iteration_count: 2, iterations_shown: 'all' });
    const [first] = view.iterations as Record<string, unknown>[];
    expect(first).toMatchObject({ iteration: 0, uuid: 'loop-0', status: 'completed' });
    expect(Object.keys(first)).not.toEqual(expect.arrayContaining(['loop', 'iterations', 'iteration_count']));
  });

  it("nests a graph step's looping execution's iterations beneath the execution", () => {
    const looping = row('exec-1', {
      parent_instance_uuid: 'step',
      execution_index: 1,
      loop_state: forEach(3),
      executions: iterationsOf(3, 'exec-1'),
      execution_count: 3,
    });
    const plain = row('exec-0', { parent_instance_uuid: 'step', execution_index: 0 });
    const view = loopView(row('step', { executions: [plain, looping], execution_count: 2 }));
    expect(view).toMatchObject({ loop: null, iteration_count: 2, iterations_shown: 'all' });
    const [first, second] = view.iterations as Record<string, unknown>[];
    expect(first).not.toHaveProperty('iterations');
    expect(second).toMatchObject({
      iteration: 1,
      uuid: 'exec-1',
      loop: forEach(3),
      iteration_count: 3,
      iterations_shown: 'all',
      iterations: [0, 1, 2].map((i) => expect.objectContaining({ iteration: i, uuid: `exec-1-${i}` })),
    });
  });

  it('says when only the first and last iterations of an execution are shown', () => {
    const execution = row('exec-0', {
      parent_instance_uuid: 'step',
      execution_index: 0,
      loop_state: forEach(101),
      executions: iterationsOf(100, 'exec-0'),
      execution_count: 101,
    });
    const [shown] = loopView(row('step', { executions: [execution], execution_count: 1 })).iterations as Record<string, unknown>[];
    expect(shown).toMatchObject({ iteration_count: 101, iterations_shown: 'first and last 50' });
  });
});

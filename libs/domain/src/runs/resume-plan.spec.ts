import { randomUUID } from 'node:crypto';
import type { StepDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { planResume, type ParentStep } from './resume-plan';

const llm = (name: string): StepDefinition => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name,
  description: '',
  model: 'm',
  system_prompt: 'hi',
});
const checker = (name: string): StepDefinition => ({
  uuid: randomUUID(),
  type: 'stop_checker',
  name,
  description: '',
  stop_conditions: [],
});
const instance = (step: StepDefinition, status: ParentStep['status'], output_id: string | null = null): ParentStep => ({
  step_definition_uuid: step.uuid,
  status,
  output_id,
});

describe(planResume.name, () => {
  const [a, b, stop, c, d] = [llm('a'), llm('b'), checker('stop'), llm('c'), llm('d')];
  const steps = [a, b, stop, c, d];
  const failedAtC = [
    instance(a, 'completed', 'out-a'),
    instance(b, 'completed', 'out-b'),
    instance(stop, 'completed'),
    instance(c, 'failed'),
    instance(d, 'skipped'),
  ];

  it('resumes from the failed step by default, carrying every earlier output', () => {
    expect(planResume({ steps }, failedAtC)).toEqual({
      from_step_uuid: c.uuid,
      carried: [
        { step_uuid: a.uuid, output_id: 'out-a' },
        { step_uuid: b.uuid, output_id: 'out-b' },
        { step_uuid: stop.uuid, output_id: null },
      ],
      // a stop checker has no output: the step before it stays $previous_output
      previous_step_uuid: b.uuid,
    });
  });

  it('resumes from a named earlier step, carrying only what came before it', () => {
    expect(planResume({ steps }, failedAtC, b.uuid.toUpperCase())).toEqual({
      from_step_uuid: b.uuid,
      carried: [{ step_uuid: a.uuid, output_id: 'out-a' }],
      previous_step_uuid: a.uuid,
    });
    expect(planResume({ steps }, failedAtC, a.uuid)).toEqual({ from_step_uuid: a.uuid, carried: [], previous_step_uuid: null });
  });

  it('resumes a cancelled run from its first step that did not complete', () => {
    const cancelled = [
      instance(a, 'completed', 'out-a'),
      instance(b, 'skipped'),
      instance(stop, 'skipped'),
      instance(c, 'skipped'),
      instance(d, 'skipped'),
    ];
    expect(planResume({ steps }, cancelled).from_step_uuid).toBe(b.uuid);
  });

  it('refuses a start that is not in the definition, naming the field', () => {
    const error = errorOf(() => planResume({ steps: [a, b] }, failedAtC));
    expect(error).toMatchObject({ code: ErrorCode.StepNotInDefinition, details: { field: 'from_step_uuid', step_uuid: c.uuid } });
  });

  it('refuses a start after a step that has no output in the parent run', () => {
    const error = errorOf(() => planResume({ steps }, failedAtC, d.uuid));
    expect(error).toMatchObject({ code: ErrorCode.StepNotCompleted, details: { field: 'from_step_uuid', step_uuid: c.uuid } });
    expect(error.message).toContain('"c"');
  });

  it('asks for a step when every step completed', () => {
    const completed = steps.map((step) => instance(step, 'completed', 'x'));
    expect(errorOf(() => planResume({ steps }, completed))).toMatchObject({
      code: ErrorCode.NothingToResume,
      details: { field: 'from_step_uuid' },
    });
    expect(planResume({ steps }, completed, d.uuid).carried).toHaveLength(4);
  });

  it('carries a step of a new definition only if the parent completed a step with its uuid', () => {
    const inserted = llm('new');
    const error = errorOf(() => planResume({ steps: [a, inserted, c] }, failedAtC, c.uuid));
    expect(error).toMatchObject({ code: ErrorCode.StepNotCompleted, details: { step_uuid: inserted.uuid } });
  });

  it('resumes a graph from a node, carrying every step the parent completed, $previous_output from a completed step feeding it', () => {
    const [entry, left, right, join] = [llm('entry'), llm('left'), llm('right'), llm('join')];
    const graph = {
      entry_node: entry.uuid,
      edges: [entry, left, right].flatMap((source) =>
        (source === entry ? [left, right] : [join]).map((target) => ({
          uuid: `${source.name}-${target.name}`,
          source_step_uuid: source.uuid,
          target_step_uuid: target.uuid,
          condition_type: 'ALWAYS' as const,
          condition_value: null,
        })),
      ),
    };
    const parentRun = [
      instance(entry, 'completed', 'out-entry'),
      instance(left, 'completed', 'out-left'),
      instance(right, 'failed'),
      instance(join, 'skipped'),
    ];
    expect(planResume({ steps: [entry, left, right, join], graph }, parentRun)).toEqual({
      from_step_uuid: right.uuid,
      carried: [
        { step_uuid: entry.uuid, output_id: 'out-entry' },
        { step_uuid: left.uuid, output_id: 'out-left' },
      ],
      previous_step_uuid: entry.uuid,
    });
  });
});

import { REPORT_OUTPUT_MAX_BYTES, replayReport, type ComparedStep } from './replay-report';

const recorded = { status: 'completed', total_tokens: 15, cost: 0.5, replayed_from: 'call-1' };
const asked = { status: 'completed', total_tokens: 20, cost: null, replayed_from: null };

function step(name: string, fields: Partial<ComparedStep> = {}): ComparedStep {
  return {
    step_definition_uuid: `uuid-${name}`,
    step_name: name,
    status: 'completed',
    error_message: null,
    duration_ms: 10,
    output: { uuid: `out-${name}`, raw_data: { text: name }, summary: name, size_bytes: 20 },
    model_calls: [],
    tool_calls: [],
    executions: [],
    ...fields,
  };
}

describe('replayReport', () => {
  const sut = replayReport;

  it('says a step identical when its output is equal as JSON, and answered from the record when every call was', () => {
    const source = [step('a', { model_calls: [asked], output: { uuid: 'o1', raw_data: { x: 1, y: 2 }, summary: '', size_bytes: 13 } })];
    const replay = [step('a', { model_calls: [recorded], output: { uuid: 'o2', raw_data: { y: 2, x: 1 }, summary: '', size_bytes: 13 } })];

    const report = sut(source, replay);

    expect(report.summary).toEqual({ identical: 1, changed: 0, new: 0, failed: 0, removed: 0 });
    expect(report.steps[0]).toMatchObject({
      comparison: 'identical',
      source: { total_tokens: 20, cost: null, output: { x: 1, y: 2 } },
      replay: { answered: 'record', calls_from_record: 1, calls_made: 1, total_tokens: 15, cost: 0.5 },
    });
  });

  it('tells changed, new, failed and removed steps apart, matching by uuid and else by name', () => {
    const source = [step('a'), step('b'), step('c', { status: 'skipped', output: null }), step('gone')];
    const replay = [
      step('a', { step_definition_uuid: 'renamed-uuid' }),
      step('b', { output: { uuid: 'x', raw_data: { text: 'other' }, summary: '', size_bytes: 10 }, model_calls: [asked, recorded] }),
      step('c'),
      step('d', { status: 'failed', error_message: 'REPLAY_TOOL_NOT_REPLAYABLE: ...', output: null }),
    ];

    const report = sut(source, replay);

    expect(report.steps.map((s) => [s.step_name, s.comparison])).toEqual([
      ['a', 'identical'],
      ['b', 'changed'],
      ['c', 'new'],
      ['d', 'failed'],
      ['gone', 'removed'],
    ]);
    expect(report.steps[1].replay?.answered).toBe('mixed');
    expect(report.steps[4].replay).toBeNull();
    expect(report.summary).toEqual({ identical: 1, changed: 1, new: 1, failed: 1, removed: 1 });
  });

  it('counts the calls of a step’s executions, and shows a large output by its id only', () => {
    const big = { uuid: 'big', raw_data: 'x'.repeat(10), summary: 'xxx…', size_bytes: REPORT_OUTPUT_MAX_BYTES + 1 };
    const replay = [
      step('loop', { output: big, executions: [step('loop', { model_calls: [asked] }), step('loop', { model_calls: [asked] })] }),
    ];

    const [report] = sut([], replay).steps;

    expect(report.replay).toMatchObject({ answered: 'computed', calls_made: 2, total_tokens: 40, output: null, output_id: 'big' });
  });
});

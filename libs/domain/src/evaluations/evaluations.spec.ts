import { ExpressionMeter } from '../conditions/json-path-budget';
import { type DomainError } from '../errors';
import type { CaseRun } from './assertions';
import { DATASET_BODY, EVALUATION_BODY, type EvalCase } from './dataset';
import { caseResult, evaluationReport, targetResult } from './evaluation-report';

const run = (outputs: Record<string, unknown>, fields: Partial<CaseRun> = {}): CaseRun => ({
  status: 'completed',
  output: (step) => outputs[step ?? 'final'],
  total_tokens: 120,
  duration_ms: 900,
  ...fields,
});

const item: EvalCase = {
  name: 'refund',
  trigger_output: { email: 'refund please' },
  assertions: [
    { kind: 'schema', schema: { type: 'object', required: ['intent'] } },
    { kind: 'condition', path: '$.intent', operator: 'equals', value: 'refund' },
    { kind: 'condition', step: 'draft', path: '$', operator: 'contains', value: 'sorry' },
    { kind: 'max_tokens', value: 100 },
    { kind: 'max_duration_ms', value: 1000 },
  ],
};

describe('evaluation assertions', () => {
  it('checks each assertion on the run, with the value it saw, and that the run completed', () => {
    const result = caseResult(item, 'run-1', run({ final: { intent: 'refund' }, draft: 'We are sorry' }), new ExpressionMeter());

    expect(result.assertions.map((a) => [a.name, a.passed, a.actual])).toEqual([
      ['run completed', true, 'completed'],
      ['schema', true, { intent: 'refund' }],
      ['$.intent equals "refund"', true, 'refund'],
      ['$ of draft contains "sorry"', true, 'We are sorry'],
      ['tokens <= 100', false, 120],
      ['duration_ms <= 1000', true, 900],
    ]);
    expect(result.passed).toBe(false);
  });

  it('fails a case whose run failed, and an assertion on an output that is not there', () => {
    const result = caseResult(item, 'run-2', run({}, { status: 'failed' }), new ExpressionMeter());
    expect(result.assertions.slice(0, 3).map((a) => a.passed)).toEqual([false, false, false]);
  });
});

describe('evaluationReport', () => {
  it('lists what passed on the baseline and fails on the candidate first, then the fixes', () => {
    const meter = new ExpressionMeter();
    const good = run({ final: { intent: 'refund' }, draft: 'sorry' }, { total_tokens: 50 });
    const bad = run({ final: { intent: 'other' }, draft: 'sorry' }, { total_tokens: 50 });
    const slow = run({ final: { intent: 'refund' }, draft: 'sorry' }, { total_tokens: 500 });
    const baseline = targetResult(1, [caseResult(item, 'a', good, meter), caseResult({ ...item, name: 'b' }, 'b', slow, meter)]);
    const candidate = targetResult('current', [caseResult(item, 'c', bad, meter), caseResult({ ...item, name: 'b' }, 'd', good, meter)]);

    const report = evaluationReport([baseline, candidate]);

    expect(report.comparison).toMatchObject({ regressions: 1, fixes: 1 });
    expect(report.comparison!.changes.map((c) => [c.change, c.case, c.assertion])).toEqual([
      ['regression', 'refund', '$.intent equals "refund"'],
      ['fix', 'b', 'tokens <= 100'],
    ]);
    expect(report.targets.map((t) => [t.passed, t.failed])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(evaluationReport([baseline]).comparison).toBeNull();
  });
});

describe('DATASET_BODY', () => {
  it('takes cases with trigger data or a recorded run, and refuses one with both, a bad path or a repeated name', () => {
    expect(
      DATASET_BODY.parse({
        name: 'smoke',
        cases: [item, { name: 'recorded', run_uuid: '6f1c1b1e-0d3c-4b8e-9b1a-2f3c4d5e6f70', assertions: [] }],
      }).cases,
    ).toHaveLength(2);
    const refused = (cases: unknown[]) => {
      try {
        DATASET_BODY.parse({ name: 'x', cases });
      } catch (error) {
        return (error as DomainError).details.field;
      }
      return null;
    };
    expect(refused([{ ...item, run_uuid: '6f1c1b1e-0d3c-4b8e-9b1a-2f3c4d5e6f70' }])).toBe('cases[0]');
    expect(refused([{ ...item, assertions: [{ kind: 'condition', path: '$..a..b', operator: 'equals', value: 1 }] }])).toBe(
      'cases[0].assertions[0].path',
    );
    expect(refused([item, item])).toBe('cases[1].name');
  });

  it('reads an evaluation against a baseline as two targets, the baseline first', () => {
    expect(EVALUATION_BODY.parse({ dataset: 'smoke', against: 3 })).toEqual({ dataset: 'smoke', targets: [3, 'current'], concurrency: 4 });
  });
});

import { retryPolicyIssues } from './retry-policy';

describe(retryPolicyIssues.name, () => {
  it('takes whole milliseconds in order, and leaves ranges to the schema', () => {
    expect(retryPolicyIssues({ initial_interval_seconds: 0.25, maximum_interval_seconds: 30 }, 'steps[0]')).toEqual([]);
    expect(retryPolicyIssues(null, 'steps[0]')).toEqual([]);
    expect(retryPolicyIssues({ initial_interval_seconds: 1e-7 }, 'steps[0]')).toEqual([]);
  });

  it('names each interval that is not a whole millisecond, and a maximum under the initial', () => {
    expect(
      retryPolicyIssues({ initial_interval_seconds: 0.0015, maximum_interval_seconds: 0.001 }, 'steps[1]').map((issue) => [
        issue.code,
        issue.field,
      ]),
    ).toEqual([
      ['VALIDATION_FAILED', 'steps[1].retry_policy.initial_interval_seconds'],
      ['VALIDATION_FAILED', 'steps[1].retry_policy.maximum_interval_seconds'],
    ]);
  });
});

// A step's retry_policy beyond what its schema says: intervals Temporal takes, in an order it takes.
import { isJsonObject } from '../json-object';
import { ErrorCode } from '../errors';
import { durationProblem, MIN_DURATION_SECONDS } from './durations';
import { fieldPath, type Issue } from './issues';
import { MAX_RETRY_INTERVAL_SECONDS } from './step-schemas';

const INTERVALS = ['initial_interval_seconds', 'maximum_interval_seconds'] as const;

/** `retry` is the step's retry_policy as sent; `prefix` names the step (`steps[2]`). */
export function retryPolicyIssues(retry: unknown, prefix: string): Issue[] {
  if (!isJsonObject(retry)) return [];
  const at = (name: string) => fieldPath(prefix, `retry_policy.${name}`);
  const issues: Issue[] = [];
  for (const name of INTERVALS) {
    const seconds = retry[name];
    // Out of range or not a number: the schema has said so already.
    if (typeof seconds !== 'number' || seconds < MIN_DURATION_SECONDS || seconds > MAX_RETRY_INTERVAL_SECONDS) continue;
    const problem = durationProblem(seconds, MAX_RETRY_INTERVAL_SECONDS);
    if (problem) issues.push({ code: ErrorCode.ValidationFailed, field: at(name), message: `${at(name)} ${problem}` });
  }
  const { initial_interval_seconds: initial, maximum_interval_seconds: maximum } = retry;
  if (typeof initial === 'number' && typeof maximum === 'number' && maximum < initial) {
    issues.push({
      code: ErrorCode.ValidationFailed,
      field: at('maximum_interval_seconds'),
      message: `${at('maximum_interval_seconds')} must be at least initial_interval_seconds`,
    });
  }
  return issues;
}

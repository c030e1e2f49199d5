// The operator's say on models (MODELS_ALLOWED, MAX_MAX_TOKENS): checked when a workflow is saved, and
// again when a run starts, for workflows saved before the setting changed.
import type { StepDefinition } from '@app/contracts';
import { ErrorCode } from '../errors';
import type { Issue } from './issues';

export interface ModelPolicy {
  /** Empty: any model. */
  allowed: readonly string[];
  maxMaxTokens: number;
}

export function modelPolicyIssues(steps: readonly StepDefinition[], policy: ModelPolicy, prefix = ''): Issue[] {
  return steps.flatMap((step, i): Issue[] => {
    if (step.type !== 'custom_llm' && step.type !== 'custom_agent') return [];
    const at = `${prefix}steps[${i}]`;
    const issues: Issue[] = [];
    if (policy.allowed.length && !policy.allowed.includes(step.model)) {
      issues.push({ code: ErrorCode.ModelNotAllowed, field: `${at}.model`, message: `${at}.model ${step.model} is not allowed here: use one of ${policy.allowed.join(', ')}` });
    }
    if (step.max_tokens && step.max_tokens > policy.maxMaxTokens) {
      issues.push({ code: ErrorCode.ValidationFailed, field: `${at}.max_tokens`, message: `${at}.max_tokens must be at most ${policy.maxMaxTokens}` });
    }
    return issues;
  });
}

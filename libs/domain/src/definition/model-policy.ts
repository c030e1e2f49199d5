// The operator's say on models (the providers configured, MODELS_ALLOWED, MAX_MAX_TOKENS) and on how many items a
// for_each runs at once (LOOP_MAX_CONCURRENCY): checked when a
// workflow is saved, and again when a run starts, for workflows saved before the settings changed.
import { MODEL_PROVIDERS, type ModelProvider, type StepDefinition, type StepLoop } from '@app/contracts';
import { ErrorCode } from '../errors';
import type { Issue } from './issues';

export interface ModelPolicy {
  /**
   * MODELS_ALLOWED entries: `model` (a model of the default provider), `provider:model`, or `provider:*`
   * (any model of that provider). Empty: any model of any offered provider.
   */
  allowed: readonly string[];
  maxMaxTokens: number;
  /** LOOP_MAX_CONCURRENCY: the most a for_each's max_concurrency may ask (checked with the rest at save and start). Absent: the schema's ceiling. */
  maxLoopConcurrency?: number;
  /** The providers configured, and the one a step without `provider` uses. Absent: all of them, openai by default. */
  providers?: { offered: readonly ModelProvider[]; default: ModelProvider };
}

export interface AllowedModel {
  provider: ModelProvider;
  /** `*`: any. */
  model: string;
}

/**
 * One MODELS_ALLOWED entry. Model names may hold colons themselves (`llama3:8b`, `...:free`), so only a
 * prefix that names a provider counts as one: `openrouter:meta-llama/llama-3-8b:free` is OpenRouter's.
 */
export function allowedModelOf(entry: string, defaultProvider: ModelProvider): AllowedModel {
  const colon = entry.indexOf(':');
  const prefix = entry.slice(0, colon);
  if (colon > 0 && (MODEL_PROVIDERS as readonly string[]).includes(prefix))
    return { provider: prefix as ModelProvider, model: entry.slice(colon + 1) };
  return { provider: defaultProvider, model: entry };
}

/** The provider a step's model calls go to. */
export function providerOf(step: { provider?: ModelProvider | null }, defaultProvider: ModelProvider): ModelProvider {
  return step.provider ?? defaultProvider;
}

export function modelPolicyIssues(steps: readonly StepDefinition[], policy: ModelPolicy, prefix = ''): Issue[] {
  return steps.flatMap((step, i): Issue[] => {
    const at = `${prefix}steps[${i}].`;
    if (step.type === 'sub_workflow') return concurrencyIssues(step.loop, policy, at);
    if (step.type !== 'custom_llm' && step.type !== 'custom_agent') return [];
    return [...modelChoiceIssues(step, policy, at), ...concurrencyIssues(step.loop, policy, at)];
  });
}

function concurrencyIssues(loop: StepLoop | null | undefined, policy: ModelPolicy, at: string): Issue[] {
  const max = policy.maxLoopConcurrency;
  if (loop?.type !== 'for_each' || max === undefined || (loop.max_concurrency ?? 1) <= max) return [];
  const field = `${at}loop.max_concurrency`;
  return [{ code: ErrorCode.InvalidLoop, field, message: `${field} must be at most ${max} here (LOOP_MAX_CONCURRENCY)` }];
}

/** The issues of one choice of provider, model and max_tokens (a step's, or an assistant session's); `at` prefixes the fields. */
export function modelChoiceIssues(
  choice: { provider?: ModelProvider | null; model: string; max_tokens?: number | null },
  policy: ModelPolicy,
  at = '',
): Issue[] {
  const providers = policy.providers ?? { offered: MODEL_PROVIDERS, default: 'openai' };
  const allowed = policy.allowed.map((entry) => allowedModelOf(entry, providers.default));
  const provider = providerOf(choice, providers.default);
  const issues: Issue[] = [];
  if (!providers.offered.includes(provider)) {
    const field = `${at}provider`;
    issues.push({
      code: ErrorCode.ProviderNotConfigured,
      field,
      message: `${field} ${provider} is not configured here: use one of ${providers.offered.join(', ')}`,
    });
  } else if (
    allowed.length &&
    !allowed.some((entry) => entry.provider === provider && (entry.model === '*' || entry.model === choice.model))
  ) {
    const models = allowed.filter((entry) => entry.provider === provider).map((entry) => entry.model);
    const choices = models.length ? `use one of ${models.join(', ')}` : `no model of ${provider} is allowed`;
    issues.push({
      code: ErrorCode.ModelNotAllowed,
      field: `${at}model`,
      message: `${at}model ${choice.model} is not allowed here: ${choices}`,
    });
  }
  if (choice.max_tokens && choice.max_tokens > policy.maxMaxTokens) {
    issues.push({
      code: ErrorCode.ValidationFailed,
      field: `${at}max_tokens`,
      message: `${at}max_tokens must be at most ${policy.maxMaxTokens}`,
    });
  }
  return issues;
}

import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { ModelProvider, StepContext } from '@app/contracts';
import { inClientSpan, Metrics } from '@app/observability';
import { CallAuditRepository } from '@app/persistence';
import { DRY_RUN_MODEL, dryRunAnswer, ModelCallError, ModelClients, type ModelRequest, type ModelResponse } from '@app/providers';
import type { ActivityScope } from './activity-scope';

/** A model call of a step: the request, and the provider that serves it (absent: DEFAULT_PROVIDER). */
export type StepModelRequest = ModelRequest & { provider?: ModelProvider | null };

/** What a model step asks every call with: its provider, its model, and its own max_tokens when it sets one. */
export function modelOf(step: { provider?: ModelProvider | null; model: string; max_tokens?: number | null }): Pick<StepModelRequest, 'provider' | 'model' | 'max_tokens'> {
  return { provider: step.provider, model: step.model, ...(step.max_tokens ? { max_tokens: step.max_tokens } : {}) };
}

/** The provider as metrics, traces and the audit name it: a dry run's is the dry-run model. */
const nameOf = (context: StepContext, provider: ModelProvider): string => (context.dry_run ? DRY_RUN_MODEL : provider);

/**
 * One model call, audited whatever happens: a model_calls row per (step, turn, attempt), written as it
 * starts and as it ends. The row names the messages sent by count: they are the first `message_count` of
 * the step's conversation, which the step keeps once (an agent's turns would otherwise store it n times).
 */
@Injectable()
export class ModelCallService {
  constructor(
    private readonly clients: ModelClients,
    private readonly calls: CallAuditRepository,
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  /** In a span named by the GenAI semantic conventions (`chat <model>`, gen_ai.* attributes) when tracing is on. */
  call(context: StepContext, turn: number, { provider: named, ...request }: StepModelRequest, scope: ActivityScope): Promise<ModelResponse> {
    const provider = named ?? this.config.providers.default;
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': nameOf(context, provider), 'gen_ai.request.model': request.model, 'stepwise.run_uuid': context.run_uuid, 'stepwise.turn': turn };
    return inClientSpan(`chat ${request.model}`, attributes, async (span) => {
      const response = await this.audited(context, turn, provider, request, scope);
      span.setAttributes({
        'gen_ai.response.model': response.model,
        'gen_ai.usage.input_tokens': response.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': response.usage.completion_tokens,
        'gen_ai.response.finish_reasons': [response.finish_reason ?? 'unknown'],
      });
      return response;
    });
  }

  private async audited(context: StepContext, turn: number, provider: ModelProvider, asked: ModelRequest, scope: ActivityScope): Promise<ModelResponse> {
    // Every call has a ceiling: the step's, else the operator's default.
    const request = { ...asked, max_tokens: asked.max_tokens ?? this.config.models.defaultMaxTokens };
    const started_at = new Date();
    const audited = { model: request.model, message_count: request.messages.length, tools: request.tools?.map((tool) => tool.name) ?? [], response_format: request.response_format ?? null };
    const started = { run_uuid: context.run_uuid, step_instance_uuid: context.instance_uuid, turn, attempt: scope.attempt, provider: nameOf(context, provider), model: request.model, request: audited, started_at };
    const attempt = await this.calls.recordModelCall({ ...started, status: 'running', error_message: null, response: null, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, duration_ms: null, finished_at: null });
    const base = { ...started, attempt };
    try {
      // A dry run never reaches the provider: the built-in dry-run model answers (its n-th answer for the n-th execution).
      const response = context.dry_run ? dryRunAnswer(request, context.execution?.index ?? 0) : await this.clients.forProvider(provider).complete(request, { signal: scope.signal });
      await this.calls.recordModelCall({
        ...base,
        status: 'completed',
        error_message: null,
        response: { message: response.message, finish_reason: response.finish_reason, model: response.model },
        ...response.usage,
        duration_ms: response.duration_ms,
        finished_at: new Date(),
      });
      this.metrics.recordModelCall(nameOf(context, provider), request.model, 'completed', response.usage);
      return response;
    } catch (error) {
      const finished_at = new Date();
      await this.calls.recordModelCall({
        ...base,
        status: 'failed',
        error_message: error instanceof ModelCallError ? error.message : String((error as Error)?.message ?? error),
        response: null,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        duration_ms: finished_at.getTime() - started_at.getTime(),
        finished_at,
      });
      this.metrics.recordModelCall(nameOf(context, provider), request.model, 'failed');
      throw error;
    }
  }
}

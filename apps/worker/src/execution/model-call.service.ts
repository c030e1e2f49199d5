import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { requestHash } from '@app/domain';
import type { ModelProvider, ResponseCache, StepContext } from '@app/contracts';
import { inClientSpan } from '@app/observability';
import { CallAuditRepository, type ModelCallAttempt } from '@app/persistence';
import { DRY_RUN_MODEL, dryRunAnswer, ModelCallError, ModelClients, type ModelRequest, type ModelResponse } from '@app/providers';
import type { ActivityScope } from './activity-scope';
import { AnswerDeltas } from './answer-deltas.service';
import { CallCosts } from './call-costs';
import { CallQuarantine } from './call-quarantine.service';
import { ReplayRecord } from './replay-record.service';
import { ProviderGate } from './provider-gate';
import { ResponseCacheService } from './response-cache';
import { SpendGuard, type SpendHold } from './spend-guard';

/** A model call of a step: the request, the provider that serves it (absent: DEFAULT_PROVIDER), and the step's response cache. */
export type StepModelRequest = ModelRequest & { provider?: ModelProvider | null; cache?: ResponseCache | null };

/** What a model step asks every call with: its provider, its model, its own max_tokens and its response cache when it sets them. */
export function modelOf(step: {
  provider?: ModelProvider | null;
  model: string;
  max_tokens?: number | null;
  cache?: ResponseCache | null;
}): Pick<StepModelRequest, 'provider' | 'model' | 'max_tokens' | 'cache'> {
  return {
    provider: step.provider,
    model: step.model,
    ...(step.max_tokens ? { max_tokens: step.max_tokens } : {}),
    ...(step.cache ? { cache: step.cache } : {}),
  };
}

/**
 * A call to a provider account with PROVIDER_LIMITS that meets a 429 is sent again by its activity attempt this
 * many times at most (each after the account's retry-after), then left to the step's retry policy.
 */
export const RATE_LIMITED_RESENDS = 5;

/** The provider as metrics, traces and the audit name it: a dry run's (and an offline replay's) is the dry-run model. */
const nameOf = (context: StepContext, provider: ModelProvider): string =>
  context.dry_run || context.replay?.offline ? DRY_RUN_MODEL : provider;

/** A model call's attempt before it is sent: the provider, the request as sent, and its audit row as it starts. */
export interface ModelCallStart {
  provider: ModelProvider;
  request: ModelRequest;
  running: ModelCallAttempt;
  /** The step's response cache, when it declares one. */
  cache?: ResponseCache;
}

/** A model call answered, and its audit row as it ended, for the caller to write with its own rows. */
export interface AnsweredCall {
  response: ModelResponse;
  ended: ModelCallAttempt;
}

/**
 * One model call, audited whatever happens: a model_calls row per (step, turn, attempt), written as it
 * starts and as it ends. The row names the messages sent by count: they are the first `message_count` of
 * the step's transcript, which the step keeps once (an agent's turns would otherwise store it n times).
 * `call` writes both itself; a step that writes them with its own rows (fewer commits) takes the call's
 * `prepare`d start, and the end `send` hands back.
 */
@Injectable()
export class ModelCallService {
  constructor(
    private readonly clients: ModelClients,
    private readonly calls: CallAuditRepository,
    private readonly costs: CallCosts,
    private readonly config: AppConfig,
    private readonly quarantine: CallQuarantine,
    private readonly spend: SpendGuard,
    private readonly record: ReplayRecord,
    private readonly responses: ResponseCacheService,
    private readonly deltas: AnswerDeltas,
    private readonly gate: ProviderGate,
  ) {}

  /**
   * Asks the model, the attempt's start and end each written on its own. `correctsTurn`: the turn whose
   * answer this one asks again (a structured step's correction), audited so watchers drop that answer's text.
   */
  async call(
    context: StepContext,
    turn: number,
    request: StepModelRequest,
    scope: ActivityScope,
    correctsTurn?: number,
  ): Promise<ModelResponse> {
    const { response, ended } = await this.ask(context, turn, request, scope, correctsTurn);
    await this.calls.recordModelCall(ended);
    return response;
  }

  /** Asks the model, the attempt's start written on its own; its end is the caller's to write with its own rows. */
  async ask(
    context: StepContext,
    turn: number,
    request: StepModelRequest,
    scope: ActivityScope,
    correctsTurn?: number,
  ): Promise<AnsweredCall> {
    const start = this.prepare(context, turn, request, scope, correctsTurn);
    return this.send(context, start, await this.calls.recordModelCall(start.running), scope);
  }

  /** The attempt's request and its `running` row, nothing written yet. */
  prepare(
    context: StepContext,
    turn: number,
    { provider: named, cache, ...asked }: StepModelRequest,
    scope: ActivityScope,
    correctsTurn?: number,
  ): ModelCallStart {
    const provider = named ?? this.config.providers.default;
    // Every call has a ceiling: the step's, else the operator's default.
    const request = { ...asked, max_tokens: asked.max_tokens ?? this.config.models.defaultMaxTokens };
    const audited = {
      model: request.model,
      message_count: request.messages.length,
      tools: request.tools?.map((tool) => tool.name) ?? [],
      response_format: request.response_format ?? null,
      ...(correctsTurn === undefined ? {} : { corrects_turn: correctsTurn }),
    };
    const running: ModelCallAttempt = {
      run_uuid: context.run_uuid,
      step_instance_uuid: context.instance_uuid,
      turn,
      attempt: scope.attempt,
      provider: nameOf(context, provider),
      model: request.model,
      request_hash: requestHash({ provider, ...request }),
      request: audited,
      status: 'running',
      error_message: null,
      response: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      total_tokens: 0,
      cost: null,
      cached_from: null,
      duration_ms: null,
      started_at: new Date(),
      finished_at: null,
    };
    return { provider, request, running, ...(cache ? { cache } : {}) };
  }

  /**
   * Sends the call whose `running` row went under `attempt`, in a span named by the GenAI semantic conventions
   * (`chat <model>`, gen_ai.* attributes) when tracing is on. Answered: its ended row, for the caller to write.
   * Failed, or refused because earlier attempts died with their workers (RUN_QUARANTINED): the ended row
   * written here, and the error thrown.
   */
  async send(
    context: StepContext,
    { provider, request, running, cache }: ModelCallStart,
    attempt: number,
    scope: ActivityScope,
    /** How many 429s of a limited provider this activity attempt has met already (see RATE_LIMITED_RESENDS). */
    rateLimitedBefore = 0,
  ): Promise<AnsweredCall> {
    const base = { ...running, attempt };
    const refusal = await this.quarantine.ofModelCall(running.step_instance_uuid, running.turn, attempt);
    if (refusal) {
      await this.calls.recordModelCall({
        ...base,
        status: 'failed',
        error_message: refusal.message,
        duration_ms: 0,
        finished_at: new Date(),
      });
      throw refusal;
    }
    const system = nameOf(context, provider);
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': system,
      'gen_ai.provider.name': system,
      'gen_ai.request.model': request.model,
      'gen_ai.request.max_tokens': request.max_tokens,
      ...(request.temperature !== undefined ? { 'gen_ai.request.temperature': request.temperature } : {}),
      'stepwise.run_uuid': context.run_uuid,
      'stepwise.turn': running.turn,
    };
    // A replay's call asked as one of the replayed run's: its recorded answer, no provider asked.
    const recorded = context.replay ? await this.record.modelAnswer(context.replay, running.request_hash) : null;
    if (recorded) return { response: recorded.response, ended: answeredRow(base, recorded.response, 0, recorded.call.uuid) };
    return inClientSpan(`chat ${request.model}`, attributes, async (span) => {
      // A step that declares a cache: an identical call of the same user's within its TTL answers, no provider asked.
      const cached = cache && !context.dry_run ? await this.responses.answer(context.user_id, base, cache) : null;
      if (cached) {
        span.setAttributes({ 'stepwise.cache_hit': true, 'gen_ai.usage.input_tokens': 0, 'gen_ai.usage.output_tokens': 0 });
        await this.costs.count(context, system, request.model, 'cached');
        return cached;
      }
      let response: ModelResponse;
      let hold: SpendHold | null = null;
      // The answer streams to the run's watchers (MODEL_STREAMING); its last pieces commit beside the call's end.
      const stream =
        context.dry_run || context.replay?.offline || !this.config.models.stream
          ? null
          : this.deltas.open(context.run_uuid, { step_instance_uuid: running.step_instance_uuid, turn: running.turn, attempt });
      try {
        // A dry run (or an offline replay) never reaches the provider: the built-in dry-run model answers (its n-th answer for the n-th execution).
        if (context.dry_run || context.replay?.offline)
          response = dryRunAnswer(request, context.execution?.index ?? 0, this.config.limits.exampleMaxBytes);
        else {
          // The metrics' label is read while the provider answers, not after.
          this.costs.prefetch(context);
          // The call's worst case held against its run's max_cost and the user's spend limits first: no room, no call.
          hold = await this.spend.reserve(context.user_id, context.run_uuid, system, request, {
            retried: attempt > 1,
            callKey: `${running.step_instance_uuid}:${running.turn}`,
          });
          // Then its slot at a provider account with limits, shared by every worker (none: no wait); a wait renews the holds.
          if (await this.gate.acquire(provider, context.user_id, request, scope.signal)) await this.spend.sending(hold);
          response = await this.clients
            .forProvider(provider)
            .complete(request, { signal: scope.signal, ...(stream ? { onDelta: stream.add } : {}) });
        }
        stream?.close();
      } catch (error) {
        stream?.close();
        await this.spend.settle(hold, null);
        // A provider's 429 slows every caller of the account, not just this one.
        const rateLimited = error instanceof ModelCallError && error.kind === 'rate_limited';
        if (rateLimited) await this.gate.rateLimited(provider, error.retryAfterMs);
        const finished_at = new Date();
        const error_message = error instanceof ModelCallError ? error.message : String((error as Error)?.message ?? error);
        await this.calls.recordModelCall({
          ...base,
          status: 'failed',
          error_message,
          duration_ms: finished_at.getTime() - running.started_at.getTime(),
          finished_at,
        });
        await this.costs.count(context, system, request.model, 'failed');
        // An account the gate keeps: the call is sent again here once its next slot (past the retry-after) comes,
        // as the attempt after this one, so the provider's pace spends none of the step's retry attempts.
        if (rateLimited && this.gate.keeps(provider) && rateLimitedBefore < RATE_LIMITED_RESENDS) {
          const again = { ...running, started_at: new Date() };
          const next = await this.calls.recordModelCall({ ...again, attempt: attempt + 1 });
          return this.send(context, { provider, request, running: again, ...(cache ? { cache } : {}) }, next, scope, rateLimitedBefore + 1);
        }
        throw error;
      }
      // Priced by the model asked for: the one the price table and the budget know.
      const cost = this.costs.costOf(system, request.model, response.usage);
      await this.spend.settle(hold, cost);
      await this.costs.count(context, system, request.model, 'completed', { usage: response.usage, cost });
      span.setAttributes({
        'gen_ai.response.model': response.model,
        'gen_ai.usage.input_tokens': response.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': response.usage.completion_tokens,
        ...(response.usage.cached_tokens ? { 'gen_ai.usage.cache_read.input_tokens': response.usage.cached_tokens } : {}),
        ...(cost !== null ? { 'stepwise.cost_usd': cost } : {}),
        'gen_ai.response.finish_reasons': [response.finish_reason ?? 'unknown'],
      });
      return { response, ended: answeredRow(base, response, cost, null) };
    });
  }
}

/** An attempt's row as it ended with an answer; `replayedFrom`: the recorded call a replay took it from (no tokens, no cost). */
function answeredRow(base: ModelCallAttempt, response: ModelResponse, cost: number | null, replayedFrom: string | null): ModelCallAttempt {
  return {
    ...base,
    status: 'completed',
    response: { message: response.message, finish_reason: response.finish_reason, model: response.model },
    replayed_from: replayedFrom,
    ...response.usage,
    cached_tokens: response.usage.cached_tokens ?? 0,
    cost,
    duration_ms: response.duration_ms,
    finished_at: new Date(),
  };
}

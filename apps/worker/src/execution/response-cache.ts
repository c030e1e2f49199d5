import { Injectable } from '@nestjs/common';
import type { ResponseCache } from '@app/contracts';
import { CallAuditRepository, type ModelCallAttempt } from '@app/persistence';
import type { ModelResponse } from '@app/providers';

/** What the audit keeps of an answer (ModelCallService writes it so): enough to answer again. */
interface RecordedAnswer {
  message: ModelResponse['message'];
  finish_reason: string | null;
  model: string;
}

/**
 * The opt-in response cache of steps that declare `cache: {ttl_seconds}`: a call whose request hash (libs/domain
 * calls/requestHash: provider, model, messages, tools, schema, sampling) matches one of the same user's that a
 * provider answered within the TTL is answered from the audit, its row a hit (`cached_from`, no tokens, cost 0).
 * The audit is the cache: nothing else to keep or evict, and a user's hits never reach another user's calls.
 */
@Injectable()
export class ResponseCacheService {
  constructor(private readonly calls: CallAuditRepository) {}

  /** The attempt answered from the cache, its ended row beside it; null when nothing fresh matches. */
  async answer(
    userId: string,
    attempt: ModelCallAttempt,
    cache: ResponseCache,
  ): Promise<{ response: ModelResponse; ended: ModelCallAttempt } | null> {
    if (!attempt.request_hash) return null;
    const since = new Date(Date.now() - cache.ttl_seconds * 1000);
    const hit = await this.calls.cachedAnswer(userId, attempt.request_hash, since);
    if (!hit?.response) return null;
    const answer = hit.response as RecordedAnswer;
    const finished_at = new Date();
    const duration_ms = finished_at.getTime() - attempt.started_at.getTime();
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    return {
      response: { message: answer.message, finish_reason: answer.finish_reason, model: answer.model, usage, duration_ms },
      ended: {
        ...attempt,
        status: 'completed',
        response: answer,
        ...usage,
        cached_tokens: 0,
        cost: 0,
        cached_from: hit.uuid,
        duration_ms,
        finished_at,
      },
    };
  }
}

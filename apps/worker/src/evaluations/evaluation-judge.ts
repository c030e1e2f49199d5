// A judge assertion (#30): a model reads the criteria and the output and answers {pass, reason}. Its call is
// held against the user's spend limits like any model call; it is not a run's, so it has no audit row.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { EvalAssertion, JudgeVerdict } from '@app/domain';
import { ModelClients, type ModelRequest } from '@app/providers';
import { CallCosts } from '../execution/call-costs';
import { SpendGuard, type SpendHold } from '../execution/spend-guard';

/** The output a judge reads is cut to this many characters of JSON. */
export const JUDGED_OUTPUT_MAX_CHARS = 20_000;
const JUDGE_MAX_TOKENS = 300;

const INSTRUCTIONS =
  'You judge whether an output meets criteria. Read the criteria and the output, then answer with JSON only: {"pass": true or false, "reason": "one sentence"}.';

const VERDICT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['pass', 'reason'],
  properties: { pass: { type: 'boolean' }, reason: { type: 'string' } },
};

@Injectable()
export class EvaluationJudge {
  constructor(
    private readonly clients: ModelClients,
    private readonly spend: SpendGuard,
    private readonly costs: CallCosts,
    private readonly config: AppConfig,
  ) {}

  async judge(userId: string, assertion: Extract<EvalAssertion, { kind: 'judge' }>, output: unknown): Promise<JudgeVerdict> {
    const { allowed } = this.config.models;
    if (allowed.length && !allowed.includes(assertion.model))
      return { error: `MODEL_NOT_ALLOWED: ${assertion.model} is not in MODELS_ALLOWED` };
    const provider = assertion.provider ?? this.config.providers.default;
    const text = JSON.stringify(output ?? null);
    const request: ModelRequest = {
      model: assertion.model,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        {
          role: 'user',
          content: `Criteria:\n${assertion.criteria}\n\nOutput:\n${text.length > JUDGED_OUTPUT_MAX_CHARS ? `${text.slice(0, JUDGED_OUTPUT_MAX_CHARS)}…` : text}`,
        },
      ],
      response_format: { type: 'json_schema', name: 'verdict', schema: VERDICT_SCHEMA },
      max_tokens: JUDGE_MAX_TOKENS,
    };
    let hold: SpendHold | null = null;
    try {
      hold = await this.spend.reserve(userId, null, provider, request);
      const response = await this.clients.forProvider(provider).complete(request);
      await this.spend.settle(hold, this.costs.costOf(provider, assertion.model, response.usage));
      hold = null;
      const verdict = JSON.parse(response.message.content ?? '') as { pass?: unknown; reason?: unknown };
      if (typeof verdict?.pass !== 'boolean') return { error: 'the judge did not answer {pass, reason}' };
      return { pass: verdict.pass, reason: typeof verdict.reason === 'string' ? verdict.reason : '' };
    } catch (error) {
      if (hold) await this.spend.settle(hold, null);
      return { error: `the judge could not answer: ${(error as Error).message}` };
    }
  }
}

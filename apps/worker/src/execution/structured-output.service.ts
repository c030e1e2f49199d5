import { Injectable } from '@nestjs/common';
import type { ChatMessage, CustomAgentStep, CustomLlmStep, StepContext } from '@app/contracts';
import { checkStructuredAnswer, correctionMessage, DEFAULT_MAX_CORRECTION_ATTEMPTS, type StructuredAnswer } from '@app/domain';
import { CallAuditRepository, StepRepository, type ModelCallAttempt } from '@app/persistence';
import type { ResponseFormat } from '@app/providers';
import type { ActivityScope } from './activity-scope';
import { ModelCallService } from './model-call.service';
import { StepError } from './step-error';
import { answerData } from './step-output';
import { modelOf } from './model-call.service';

type ModelStep = CustomLlmStep | CustomAgentStep;

/** What the provider is asked for: the step's output_schema as a JSON Schema response format, if it has one. */
export function responseFormatOf(step: ModelStep): ResponseFormat | null {
  return step.output_schema ? { type: 'json_schema', name: 'step_output', schema: step.output_schema } : null;
}

export interface SettledAnswer {
  data: unknown;
  /** The transcript with every correction asked for and answered. */
  messages: ChatMessage[];
  /** The end of the answering call's attempt when the caller handed it in unwritten: for the caller to write with the output. */
  ended?: ModelCallAttempt;
}

function check(answer: ChatMessage | undefined, schema: object): StructuredAnswer {
  if (answer?.tool_calls?.length) return { ok: false, errors: ['the answer called tools: answer with the JSON itself'] };
  return checkStructuredAnswer(answer?.content ?? null, schema);
}

/** Tool calls no one will answer make the next request invalid: the transcript keeps the text only. */
function withoutToolCalls({ tool_calls: _dropped, ...message }: ChatMessage): ChatMessage {
  return message;
}

/**
 * Holds a model step to its output_schema. The answer ending the transcript is checked; while it breaks
 * the schema and corrections remain, it is sent back with the validation errors and the model asked again
 * (no tools offered), each call audited as the next turn, marked as correcting the turn before (its live
 * event voids that turn's text). The loop stays inside the calling activity: a retried activity starts it
 * over under its own attempt number, and the workflow never sees it.
 */
@Injectable()
export class StructuredOutputService {
  constructor(
    private readonly models: ModelCallService,
    private readonly steps: StepRepository,
    private readonly calls: CallAuditRepository,
  ) {}

  /**
   * `transcript` ends with the model's answer, given at turn `turn`. `ended`: that call's end, not written
   * yet; handed back when the answer stands, written here before a correction is asked for.
   */
  async settle(
    context: StepContext,
    step: ModelStep,
    transcript: ChatMessage[],
    turn: number,
    scope: ActivityScope,
    ended?: ModelCallAttempt,
  ): Promise<SettledAnswer> {
    const schema = step.output_schema;
    if (!schema) return { data: answerData(transcript.at(-1)?.content ?? null), messages: transcript, ended };
    const allowed = step.max_correction_attempts ?? DEFAULT_MAX_CORRECTION_ATTEMPTS;
    let messages = transcript;
    let answer = transcript.at(-1);
    let unwritten = ended;
    for (let corrections = 0; ; corrections++) {
      const checked = check(answer, schema);
      if (checked.ok) return { data: checked.data, messages, ended: unwritten };
      if (unwritten) await this.calls.recordModelCall(unwritten);
      unwritten = undefined;
      if (corrections >= allowed) {
        await this.steps.saveMessages(context.instance_uuid, messages);
        const attempts = `${corrections + 1} attempt${corrections ? 's' : ''}`;
        throw new StepError(
          'InvalidStructuredOutput',
          `step "${step.name}" gave no answer following its output_schema in ${attempts}: ${checked.errors.join('; ')}`,
        );
      }
      messages = [...messages, { role: 'user', content: correctionMessage(checked.errors) }];
      await this.steps.saveMessages(context.instance_uuid, messages); // what the call's audit refers to, even if it fails
      const response = await this.models.call(
        context,
        turn + corrections + 1,
        { ...modelOf(step), messages, response_format: responseFormatOf(step) },
        scope,
        turn + corrections,
      );
      answer = response.message;
      messages = [...messages, withoutToolCalls(answer)];
    }
  }
}

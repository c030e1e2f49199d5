import { Injectable } from '@nestjs/common';
import type { ChatMessage, CustomLlmStep, StepContext } from '@app/contracts';
import { CallAuditRepository, OutputRepository, StepRepository } from '@app/persistence';
import type { ActivityScope } from './activity-scope';
import { modelOf, ModelCallService } from './model-call.service';
import { RecentOutputs } from './recent-outputs';
import { StepInputService } from './step-input.service';
import { completedStored, newOutput, storedOf, type StoredOutput } from './step-output';
import { responseFormatOf, StructuredOutputService } from './structured-output.service';

const ONE_STATEMENT_PROMPT_CHARS = 1024 * 1024;

/**
 * custom_llm: one chat completion; with an output_schema, that is the response format, and an answer that
 * breaks it is sent back for correction (more model calls, same activity). Two commits in all: the step's
 * start with its call's, and the call's end with the output and the step's close.
 */
@Injectable()
export class LlmStepService {
  constructor(
    private readonly inputs: StepInputService,
    private readonly models: ModelCallService,
    private readonly structured: StructuredOutputService,
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly calls: CallAuditRepository,
    private readonly recent: RecentOutputs,
  ) {}

  async run(context: StepContext, step: CustomLlmStep, scope: ActivityScope): Promise<StoredOutput> {
    const input = await this.inputs.build(context, step.system_prompt, 'full', step.loop);
    const messages: ChatMessage[] = [
      { role: 'system', content: input.system },
      { role: 'user', content: input.user },
    ];
    const call = this.models.prepare(context, 1, { ...modelOf(step), messages, response_format: responseFormatOf(step) }, scope);
    // The messages: what the call's audit refers to, even if it fails; in the start's own statement unless the
    // prompt is large (its two copies in one statement could pass the server's packet limit, 16 MiB by default).
    const apart = input.system.length + input.user.length > ONE_STATEMENT_PROMPT_CHARS;
    let attempt = await this.steps.startStepWithCall(context.instance_uuid, input.record, { list: messages, apart }, call.running);
    if (attempt === null) {
      // The row was ended by an earlier attempt: its output if it completed the step (asking only then saves a
      // read), else the call goes ahead, started on its own.
      const done = await completedStored(this.steps, this.outputs, context);
      if (done) return done;
      await this.steps.saveMessages(context.instance_uuid, messages);
      attempt = await this.calls.recordModelCall(call.running);
    }
    const { response, ended } = await this.models.send(context, call, attempt, scope);
    const answer = await this.structured.settle(context, step, [...messages, response.message], 1, scope, ended);
    const output = newOutput(context, answer.data);
    await this.steps.completeStep(context.instance_uuid, output, { messages: answer.messages, call: answer.ended });
    // A chain's next step, on this worker, reads it from here (a loop's iterations are not kept: one of many, read once at most).
    if (!context.execution) this.recent.keep(output);
    return storedOf(output);
  }
}

import { Injectable } from '@nestjs/common';
import type { ChatMessage, CustomLlmStep, OutputRef, StepContext } from '@app/contracts';
import { OutputRepository, StepRepository } from '@app/persistence';
import type { ActivityScope } from './activity-scope';
import { modelOf, ModelCallService } from './model-call.service';
import { StepInputService } from './step-input.service';
import { completedOutput, newOutput, refOf } from './step-output';
import { responseFormatOf, StructuredOutputService } from './structured-output.service';

const ONE_STATEMENT_PROMPT_CHARS = 1024 * 1024;

/**
 * custom_llm: one chat completion; with an output_schema, that is the response format, and an answer that
 * breaks it is sent back for correction (more model calls, same activity).
 */
@Injectable()
export class LlmStepService {
  constructor(
    private readonly inputs: StepInputService,
    private readonly models: ModelCallService,
    private readonly structured: StructuredOutputService,
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
  ) {}

  async run(context: StepContext, step: CustomLlmStep, scope: ActivityScope): Promise<OutputRef> {
    const input = await this.inputs.build(context, step.system_prompt, 'full', step.loop);
    const messages: ChatMessage[] = [
      { role: 'system', content: input.system },
      { role: 'user', content: input.user },
    ];
    // The messages: what the model call's audit refers to, even if it fails; saved with the start unless the
    // prompt is large (its two copies in one statement could pass the server's packet limit, 16 MiB by
    // default). A row an earlier attempt completed is not started again (asking only then saves a read).
    const together = input.system.length + input.user.length <= ONE_STATEMENT_PROMPT_CHARS;
    if (!(await this.steps.startStep(context.instance_uuid, input.record, together ? messages : undefined))) {
      const done = await completedOutput(this.steps, this.outputs, context);
      if (done) return done;
    }
    if (!together) await this.steps.saveMessages(context.instance_uuid, messages);
    const response = await this.models.call(context, 1, { ...modelOf(step), messages, response_format: responseFormatOf(step) }, scope);
    const answer = await this.structured.settle(context, step, [...messages, response.message], 1, scope);
    const output = newOutput(context, answer.data);
    await this.steps.completeStep(context.instance_uuid, output, answer.messages);
    return refOf(output);
  }
}

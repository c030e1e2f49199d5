import { Injectable } from '@nestjs/common';
import type { ChatMessage, CustomLlmStep, OutputRef, StepContext } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import type { ActivityScope } from './activity-scope';
import { ModelCallService } from './model-call.service';
import { StepInputService } from './step-input.service';
import { answerData, completedOutput, newOutput, refOf } from './step-output';

/** custom_llm: one chat completion; the output_schema, when set, is the response format. */
@Injectable()
export class LlmStepService {
  constructor(
    private readonly inputs: StepInputService,
    private readonly models: ModelCallService,
    private readonly runs: RunRepository,
  ) {}

  async run(context: StepContext, step: CustomLlmStep, scope: ActivityScope): Promise<OutputRef> {
    const done = await completedOutput(this.runs, context);
    if (done) return done;
    const input = await this.inputs.build(context, step.system_prompt, 'full');
    await this.runs.startStep(context.instance_uuid, input.record);
    const messages: ChatMessage[] = [
      { role: 'system', content: input.system },
      { role: 'user', content: input.user },
    ];
    await this.runs.saveMessages(context.instance_uuid, messages); // what the model call's audit refers to, even if it fails
    const response = await this.models.call(
      context,
      1,
      {
        model: step.model,
        messages,
        response_format: step.output_schema ? { type: 'json_schema', name: 'step_output', schema: step.output_schema } : null,
      },
      scope,
    );
    const output = newOutput(context, answerData(response.message.content, step.name, Boolean(step.output_schema)));
    await this.runs.completeStep(context.instance_uuid, output, [...messages, response.message]);
    return refOf(output);
  }
}

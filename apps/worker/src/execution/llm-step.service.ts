import { Injectable } from '@nestjs/common';
import type { ChatMessage, CustomLlmStep, StepContext } from '@app/contracts';
import { CallAuditRepository, OutputRepository, StepRepository, type RunEnding, type StepCompletion } from '@app/persistence';
import type { ActivityScope } from './activity-scope';
import { modelOf, ModelCallService } from './model-call.service';
import { RecentOutputs } from './recent-outputs';
import { promptApart, StepInputService } from './step-input.service';
import { completedStored, newOutput, storedOf, type StoredOutput } from './step-output';
import { responseFormatOf, StructuredOutputService } from './structured-output.service';

/** A step's end (its output, messages and call's end, and its close) not written yet; `written` once it is. */
export interface HeldEnd {
  completion: StepCompletion;
  written: boolean;
  /** Its output kept in this worker's memory once written on its own, for the next activity's step (not a loop's iteration). */
  keep: boolean;
}

/**
 * custom_llm: one chat completion; with an output_schema, that is the response format, and an answer that
 * breaks it is sent back for correction (more model calls, same activity). Two commits in all: the step's
 * start with its call's, and the call's end with the output and the step's close; in a chain whose steps share
 * an activity, one a step: its start with the end of the step before.
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
    const { stored, end } = await this.runHoldingEnd(context, step, scope);
    if (end) await this.writeEnd(end);
    return stored;
  }

  /**
   * The step run with its end held back (`end`; null when an earlier attempt completed the step), for the caller
   * to write with the next step's start: `before` is the end the step before held, written with this step's
   * start (one commit for the two; `written` says when it is).
   */
  async runHoldingEnd(
    context: StepContext,
    step: CustomLlmStep,
    scope: ActivityScope,
    before: HeldEnd | null = null,
  ): Promise<{ stored: StoredOutput; end: HeldEnd | null }> {
    // The step before's output is not committed yet: this step reads it from its held end.
    const held = before?.completion.output ? { ...before.completion.output, created_at: new Date() } : undefined;
    const input = await this.inputs.build(context, step.system_prompt, 'full', step.loop, held);
    const messages: ChatMessage[] = [
      { role: 'system', content: input.system },
      { role: 'user', content: input.user },
    ];
    const call = this.models.prepare(context, 1, { ...modelOf(step), messages, response_format: responseFormatOf(step) }, scope);
    // The messages: what the call's audit refers to, even if it fails; in the start's own statement unless the prompt is large.
    const apart = promptApart(input);
    const instance = context.instance_uuid;
    let attempt = await this.steps.startStepWithCall(instance, input.record, { list: messages, apart }, call.running, before?.completion);
    if (before) before.written = true;
    if (attempt === null) {
      // The row was ended by an earlier attempt: its output if it completed the step (asking only then saves a
      // read), else the call goes ahead, started on its own.
      const done = await completedStored(this.steps, this.outputs, context);
      if (done) return { stored: done, end: null };
      await this.steps.saveMessages(instance, messages);
      attempt = await this.calls.recordModelCall(call.running);
    }
    const { response, ended } = await this.models.send(context, call, attempt, scope);
    const answer = await this.structured.settle(context, step, [...messages, response.message], 1, scope, ended);
    const output = newOutput(context, answer.data);
    const completion = { instance_uuid: instance, output, messages: answer.messages, call: answer.ended };
    // A loop's iterations are not kept: one of many, read once at most.
    return { stored: storedOf(output), end: { completion, written: false, keep: !context.execution } };
  }

  /**
   * A held end written on its own (the last of a chain's steps in an activity, or one whose next step failed before
   * its start), or with its run's end (`ending`, the chain's last step): true when that end was the run's.
   */
  async writeEnd(end: HeldEnd, ending?: RunEnding): Promise<boolean> {
    const { instance_uuid, output, ...closing } = end.completion;
    let ended = false;
    if (ending) ended = await this.steps.completeStepEndingRun(end.completion, ending);
    else await this.steps.completeStep(instance_uuid, output, closing);
    end.written = true;
    // A chain's next step, on this worker, reads it from here; one whose end goes with its start took it held.
    if (end.keep && output && !ending) this.recent.keep(output);
    return ended;
  }
}

// The activity side of human_input steps: the wait recorded on the step and the run (so GET /runs shows
// who waits for what), then the answer stored as the step's output, or the step failed when none came.
import { Injectable } from '@nestjs/common';
import type { GuardRailHit, HumanInputStep, StepResultRef, JsonValue, OutputRef, StepContext } from '@app/contracts';
import { AppConfig } from '@app/config';
import { exampleOf } from '@app/domain';
import { OutputRepository, StepRepository } from '@app/persistence';
import { ReplayRecord } from './replay-record.service';
import { completedOutput, newOutput, refOf } from './step-output';

/**
 * What the waiting step shows: its prompt (with the reason a guard rail handed the run over, if so) and schema;
 * `guard_rail`, that rail as data, is what the `guard_rail_hit` event reads.
 */
export function questionOf(step: HumanInputStep, reason?: string, guardRail?: GuardRailHit) {
  return {
    prompt: reason ? `${step.prompt}\n\n${reason}` : step.prompt,
    input_schema: step.input_schema ?? null,
    timeout_seconds: step.timeout_seconds ?? null,
    ...(reason ? { reason } : {}),
    ...(guardRail ? { guard_rail: guardRail } : {}),
  };
}

@Injectable()
export class HumanInputService {
  constructor(
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly config: AppConfig,
    private readonly record: ReplayRecord,
  ) {}

  /** Records the wait; a replay gets back the answer the replayed run's step took, for its activity to send as a person's. */
  async wait(
    context: StepContext,
    step: HumanInputStep,
    reason?: string,
    guardRail?: GuardRailHit,
  ): Promise<{ input: JsonValue } | undefined> {
    await this.steps.awaitInput(context.run_uuid, context.instance_uuid, questionOf(step, reason, guardRail));
    // A sub-workflow's question makes the runs that called it wait too.
    await this.steps.callersWait(context.run_uuid, true);
    return context.replay && this.record.humanAnswer(context.replay, context.user_id, step.uuid);
  }

  /**
   * The answer (or the default taken on timeout) as the step's output; a retried activity finds it stored.
   * In a dry run a step with no default takes an answer made up from its input_schema (within the example's
   * byte budget, else the step fails with SCHEMA_TOO_LARGE): nobody is asked.
   */
  async answer(context: StepContext, input: JsonValue, step: HumanInputStep): Promise<StepResultRef> {
    const madeUp = context.dry_run && step.default === undefined;
    const ref =
      (await completedOutput(this.steps, this.outputs, context)) ??
      (await this.store(
        context,
        madeUp ? (exampleOf(step.input_schema ?? { type: 'string' }, 0, this.config.limits.exampleMaxBytes) as JsonValue) : input,
      ));
    await this.steps.inputReceived(context.run_uuid);
    await this.steps.callersWait(context.run_uuid, false);
    return ref;
  }

  private async store(context: StepContext, input: JsonValue): Promise<OutputRef> {
    const output = newOutput(context, input);
    await this.steps.completeStep(context.instance_uuid, output);
    return refOf(output);
  }

  /** No answer within timeout_seconds and no default: the step fails, and the run stops waiting. */
  async expire(context: StepContext, errorMessage: string): Promise<void> {
    await this.steps.failStep(context.instance_uuid, errorMessage);
    await this.steps.inputReceived(context.run_uuid);
    await this.steps.callersWait(context.run_uuid, false);
  }
}

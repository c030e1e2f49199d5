// The activity side of loops owned by code: the workflow decides how many iterations run; this service
// counts a for_each's items, gives each iteration its own audit row, evaluates repeat_until's predicate on
// the latest output, and writes the step's own output when the loop ends. In a graph the loop is one
// execution of its step: its row (under the step's, opened by the startLoop activity) holds its iterations.
import { Injectable } from '@nestjs/common';
import {
  LOOP_DEFAULTS,
  type FailedItem,
  type StepResultRef,
  type LoopStart,
  type LoopStopReason,
  type LoopingStep,
  type OutputRef,
  type StepContext,
} from '@app/contracts';
import { AppConfig } from '@app/config';
import { ExpressionMeter, predicateMet } from '@app/domain';
import { OutputRepository, StepRepository } from '@app/persistence';
import { StepError } from './step-error';
import { StepInputService } from './step-input.service';
import { completedOutput, newOutput, refOf, type StoredOutput } from './step-output';

/** A failed item's error as the step's output lists it: enough to tell what went wrong. */
const ITEM_ERROR_MAX_CHARS = 500;

/** A failed item in the output: its error listed for the first LOOP_FAILED_ERRORS_LISTED, past them its index alone. */
type ListedFailure = Omit<FailedItem, 'error'> & Partial<Pick<FailedItem, 'error'>>;

@Injectable()
export class LoopService {
  constructor(
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly inputs: StepInputService,
    private readonly config: AppConfig,
  ) {}

  /** `context` is the loop's own: the step's row in a chain, a new execution's row in a graph (`context.execution`). */
  async start(context: StepContext, step: LoopingStep): Promise<LoopStart> {
    const loop = step.loop!;
    if (loop.type === 'repeat_until') {
      await this.steps.startStep(context.instance_uuid, { loop });
      return { item_count: null, truncated: false };
    }
    const items = await this.inputs.loopItems(context, loop);
    const max = loop.max_items ?? LOOP_DEFAULTS.max_items;
    await this.steps.startStep(context.instance_uuid, { loop, item_count: items.length });
    return { item_count: Math.min(items.length, max), truncated: items.length > max };
  }

  /** repeat_until: whether the predicate holds on the iteration's output (an iteration of another loop passes as is). */
  checked(context: StepContext, step: LoopingStep, { ref, data }: StoredOutput): StepResultRef {
    const loop = step.loop;
    if (!context.execution || loop?.type !== 'repeat_until') return ref;
    return {
      ...ref,
      predicate_met: predicateMet(data, loop.predicate_path, loop.predicate_value, new ExpressionMeter(this.config.limits.expression)),
    };
  }

  /**
   * The loop's output (the step's, or in a graph its execution's): for_each, every iteration's data in order;
   * repeat_until, the last iteration's. A for_each going on past failures: `{items, failed, failed_count}`, a
   * failed item's place in `items` null (failedItems).
   */
  async complete(context: StepContext, step: LoopingStep, iterations: number, stoppedBy: LoopStopReason): Promise<OutputRef> {
    // A retry after the commit (its answer lost on the way to Temporal) must not store a second output.
    const done = await completedOutput(this.steps, this.outputs, context);
    if (done) return done;
    const loop = step.loop!;
    if (loop.type === 'for_each') await this.assertGatherable(context, step);
    if (loop.type === 'for_each' && loop.on_item_failure === 'continue') return await this.completeGoingOn(context, iterations, stoppedBy);
    const outputs = await this.outputs.executionOutputs(context.instance_uuid, loop.type === 'repeat_until' ? 1 : undefined);
    await this.steps.saveLoopState(context.instance_uuid, { type: loop.type, iterations, stopped_by: stoppedBy });
    // repeat_until's output is its last iteration's: referenced, not copied.
    if (loop.type === 'repeat_until' && outputs[0]) {
      await this.steps.completeStepWithOutput(context.instance_uuid, outputs[0].uuid);
      return refOf(outputs[0]);
    }
    const output = newOutput(context, loop.type === 'for_each' ? outputs.map((item) => item.raw_data) : null);
    await this.steps.completeStep(context.instance_uuid, output);
    return refOf(output);
  }

  private async completeGoingOn(context: StepContext, iterations: number, stoppedBy: LoopStopReason) {
    const failed = await this.failedItems(context);
    const byIndex = await this.outputs.executionOutputsByIndex(context.instance_uuid);
    const items = Array.from({ length: iterations }, (_, index) => byIndex.get(index)?.raw_data ?? null);
    await this.steps.saveLoopState(context.instance_uuid, {
      type: 'for_each',
      iterations,
      stopped_by: stoppedBy,
      failed_items: failed.length,
      ...(failed.length ? { outcome: 'partial_success' as const } : {}),
    });
    const output = newOutput(context, { items, failed, failed_count: failed.length });
    await this.steps.completeStep(context.instance_uuid, output);
    return refOf(output);
  }

  /**
   * Every failed item's index, read from its iteration's row, with its error for the first
   * LOOP_FAILED_ERRORS_LISTED of them: each row keeps its whole error (GET /runs/{uuid} shows the rows).
   */
  private async failedItems(context: StepContext): Promise<ListedFailure[]> {
    const rows = await this.steps.failedExecutions(context.instance_uuid, this.config.limits.loopFailedErrorsListed, ITEM_ERROR_MAX_CHARS);
    return rows.map(({ index, error_message }) =>
      error_message === undefined ? { item_index: index } : { item_index: index, error: error_message },
    );
  }

  /**
   * A for_each whose iterations' outputs weigh more than LOOP_OUTPUT_MAX_BYTES fails for good, its iterations'
   * outputs kept: read, parsed and written again in one activity (up to 10,000 iterations, each an answer of up
   * to 32,768 tokens), more would take a worker's bounded heap (256 MB) with it, and a default MariaDB could
   * not store it anyway (one statement: 16 MiB, the text twice).
   */
  private async assertGatherable(context: StepContext, step: LoopingStep): Promise<void> {
    const bytes = await this.outputs.executionOutputBytes(context.instance_uuid);
    const max = this.config.limits.loopOutputMaxBytes;
    if (bytes <= max) return;
    const mib = (n: number) => (n / 2 ** 20).toFixed(1);
    throw new StepError(
      'LoopOutputTooLarge',
      `step "${step.name}": its iterations' outputs hold ${mib(bytes)} MiB, more than the ${mib(max)} MiB a for_each may gather into its output; each iteration's output stays readable`,
    );
  }
}

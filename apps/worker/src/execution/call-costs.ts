import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { StepContext, TokenUsage } from '@app/contracts';
import { costOf, priceOf, type ModelPrice } from '@app/domain';
import { Metrics } from '@app/observability';
import { RunRepository } from '@app/persistence';

/** Runs whose workflow a worker remembers for the metrics' label: one read per run, not per call. */
const REMEMBERED_RUNS = 10_000;

/**
 * What a model call costs at the operator's prices (MODEL_PRICES_FILE over the defaults), and the counters
 * of tokens and dollars by provider, model and workflow (and user, when METRICS_USER_LABEL allows: one
 * series per user is the operator's choice, not ours).
 */
@Injectable()
export class CallCosts {
  private readonly workflows = new Map<string, Promise<string>>();

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly runs: RunRepository,
  ) {}

  priceOf(provider: string, model: string): ModelPrice | null {
    return priceOf(this.config.costs.prices, provider, model);
  }

  /** Dollars, or null when the model has no price. */
  costOf(provider: string, model: string, usage: TokenUsage): number | null {
    return costOf(this.priceOf(provider, model), usage);
  }

  /** Counts a call's outcome, and when it was answered its tokens and cost. Never fails the call: a lost label is a blank one. */
  async count(
    context: StepContext,
    provider: string,
    model: string,
    outcome: 'completed' | 'failed' | 'cached',
    spent?: { usage: TokenUsage; cost: number | null },
  ): Promise<void> {
    const labels = {
      provider,
      model,
      workflow: await this.workflowOf(context),
      ...(this.config.costs.userLabel ? { user: context.user_id } : {}),
    };
    this.metrics.recordModelCall(labels, outcome, spent?.usage, spent?.cost);
  }

  /** Starts reading the run's workflow for the label where this worker does not know it yet: `count`, after the call, finds it read. */
  prefetch(context: StepContext): void {
    void this.workflowOf(context);
  }

  /** Read once per run: the read (a promise) is kept, so a call's `prefetch` and its `count` share it; a failed one is not kept. */
  private workflowOf({ user_id, run_uuid }: StepContext): Promise<string> {
    const known = this.workflows.get(run_uuid);
    if (known !== undefined) return known;
    const read = this.runs.findRun(user_id, run_uuid).then(
      (run) => run?.workflow_uuid ?? '',
      () => {
        this.workflows.delete(run_uuid);
        return '';
      },
    );
    if (this.workflows.size >= REMEMBERED_RUNS) this.workflows.delete(this.workflows.keys().next().value!);
    this.workflows.set(run_uuid, read);
    return read;
  }
}

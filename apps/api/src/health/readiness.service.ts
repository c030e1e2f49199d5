import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { TemporalClient } from '../temporal/temporal-client';
import { KeptAnswer } from './kept-answer';

export type CheckResult = 'ok' | string;

export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; temporal: CheckResult; worker: CheckResult };
}

/** A poller seen this recently counts as a worker (Temporal keeps pollers listed for a few minutes). */
const WORKER_SEEN_WITHIN_MS = 60_000;
const CHECK_TIMEOUT_MS = 3_000;
/**
 * An answer serves every probe for this long after it came, and probes while one is asked share it: callers
 * at any rate cost MySQL and Temporal one check a second at most.
 */
const ANSWER_KEPT_MS = 1_000;

/** What `GET /health/ready` asks: MySQL answers, Temporal answers, and a worker polls the task queue. */
@Injectable()
export class ReadinessService {
  private readonly answer = new KeptAnswer(() => this.probe(), ANSWER_KEPT_MS);

  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: TemporalClient,
    private readonly config: AppConfig,
  ) {}

  check(): Promise<Readiness> {
    return this.answer.get();
  }

  private async probe(): Promise<Readiness> {
    const [database, [temporal, worker]] = await Promise.all([this.database(), this.temporalAndWorker()]);
    return { ready: database === 'ok' && temporal === 'ok' && worker === 'ok', checks: { database, temporal, worker } };
  }

  private database(): Promise<CheckResult> {
    return withTimeout(this.dataSource.query('SELECT 1'), 'MySQL').then(
      () => 'ok',
      (error: unknown) => `unavailable: ${reason(error)}`,
    );
  }

  private async temporalAndWorker(): Promise<[CheckResult, CheckResult]> {
    try {
      const client = await withTimeout(this.temporal.get(), 'Temporal');
      const { namespace, taskQueue } = this.config.temporal;
      const answer = await withTimeout(
        client.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
        }),
        'Temporal',
      );
      const now = Date.now();
      const polling = answer.pollers.some((poller) => {
        const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
        return now - seconds * 1000 < WORKER_SEEN_WITHIN_MS;
      });
      return ['ok', polling ? 'ok' : `no worker polls task queue ${taskQueue}`];
    } catch (error) {
      return [`unavailable: ${reason(error)}`, 'unknown: Temporal does not answer'];
    }
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 200);
}

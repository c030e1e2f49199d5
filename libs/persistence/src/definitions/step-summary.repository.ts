import type { DataSource } from 'typeorm';
import { In } from 'typeorm';
import type { SummaryStatus } from '@app/contracts';
import { affectedRows, type StatementResult } from '../one-trip-pool';
import { retryingRolledBack } from '../rolled-back';
import { StepSummaryEntity } from './definition.entities';

export interface StepSummaryRecord {
  step_uuid: string;
  source_hash: string;
  status: SummaryStatus;
  summary: string | null;
  error_message: string | null;
}

/** generated_summary rows: asked for by the API on a save, written by the summary workflow's activities. */
export abstract class StepSummaryRepository {
  abstract find(stepUuids: string[]): Promise<StepSummaryRecord[]>;
  /**
   * Marks the step's summary pending for this source unless it is already asked for or written for it;
   * true when it was not, or when it failed (a summary must be asked for). The last one stays shown meanwhile.
   */
  abstract request(userId: string, stepUuid: string, sourceHash: string): Promise<boolean>;
  /** Stores the summary if the step still has this source; false when an edit made it stale. */
  abstract complete(stepUuid: string, sourceHash: string, summary: string): Promise<boolean>;
  abstract fail(stepUuid: string, sourceHash: string, errorMessage: string): Promise<void>;
  abstract isCurrent(stepUuid: string, sourceHash: string): Promise<boolean>;
}

export class TypeormStepSummaryRepository extends StepSummaryRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async find(stepUuids: string[]): Promise<StepSummaryRecord[]> {
    if (stepUuids.length === 0) return [];
    const rows = await this.dataSource.manager.findBy(StepSummaryEntity, { step_uuid: In(stepUuids) });
    return rows.map(({ step_uuid, source_hash, status, summary, error_message }) => ({
      step_uuid,
      source_hash,
      status: status as SummaryStatus,
      summary,
      error_message,
    }));
  }

  /**
   * A new step's row is inserted as it is, with no locking read first: a locking read of a row that is not there
   * locks the gap where it would go, and two saves (two users', unrelated) each holding a gap lock they then insert
   * into deadlock. Only a row that exists is read locked (no gap) and updated; one deleted in between (its step
   * deleted) needs no summary. A transaction the server rolled back anyway runs again, as every write does.
   */
  async request(userId: string, stepUuid: string, sourceHash: string): Promise<boolean> {
    return retryingRolledBack(async () => {
      const inserted = await this.dataSource
        .createQueryBuilder()
        .insert()
        .orIgnore()
        .into(StepSummaryEntity)
        .values({ step_uuid: stepUuid, user_id: userId, source_hash: sourceHash, status: 'pending', summary: null, error_message: null })
        .execute();
      if (affectedRows(inserted.raw as StatementResult) > 0) return true;
      return this.dataSource.transaction(async (manager) => {
        const current = await manager.findOne(StepSummaryEntity, { where: { step_uuid: stepUuid }, lock: { mode: 'pessimistic_write' } });
        if (!current || (current.source_hash === sourceHash && current.status !== 'failed')) return false;
        await manager.update(
          StepSummaryEntity,
          { step_uuid: stepUuid },
          { source_hash: sourceHash, status: 'pending', error_message: null },
        );
        return true;
      });
    });
  }

  async complete(stepUuid: string, sourceHash: string, summary: string): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      StepSummaryEntity,
      { step_uuid: stepUuid, source_hash: sourceHash },
      { status: 'ready', summary, error_message: null },
    );
    return (result.affected ?? 0) > 0;
  }

  async fail(stepUuid: string, sourceHash: string, errorMessage: string): Promise<void> {
    await this.dataSource.manager.update(
      StepSummaryEntity,
      { step_uuid: stepUuid, source_hash: sourceHash },
      { status: 'failed', error_message: errorMessage },
    );
  }

  async isCurrent(stepUuid: string, sourceHash: string): Promise<boolean> {
    return this.dataSource.manager.existsBy(StepSummaryEntity, { step_uuid: stepUuid, source_hash: sourceHash });
  }
}

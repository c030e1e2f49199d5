import { IN_FLIGHT_RUN_STATUSES, type BudgetState } from '@app/contracts';
import type { DataSource } from 'typeorm';
import { pageOf, type Page, type PageRequest } from '../pages';
import { RunEntity } from './run.entities';
import { runOf } from './run.mappers';
import type { NewRun, NotificationRecord, RunEnding, RunFilter, RunRecord, RunWithSteps } from './run.records';
import { RunRepository, type StaleRun } from './run.repository';
import { runEndStatements } from './run-end-sql';
import { giveRunPlace, runTransaction } from './run-sql';
import { NoQuotaRow, startChecked, startStatements, writtenRun } from './run-start-sql';
import { RunWithStepsQuery } from './run-with-steps.query';
import { affectedRows, type OneTripPool } from '../one-trip-pool';
import { isDuplicateKey } from '../rolled-back';

export class TypeormRunRepository extends RunRepository {
  private readonly withSteps: RunWithStepsQuery;

  /** `maxRunsInFlight`: runs a user may have running or waiting at once (null: no limit). */
  constructor(
    private readonly dataSource: DataSource,
    private readonly oneTrip: OneTripPool,
    private readonly maxRunsInFlight: number | null = null,
  ) {
    super();
    this.withSteps = new RunWithStepsQuery(dataSource);
  }

  async create(run: NewRun): Promise<boolean> {
    return (await this.start(run)).created;
  }

  async start(run: NewRun): Promise<{ created: boolean; written: RunWithSteps | null }> {
    try {
      const now = await this.insertRun(run);
      return { created: true, written: writtenRun(run, now) };
    } catch (error) {
      if (isDuplicateKey(error) && (await this.dataSource.manager.existsBy(RunEntity, { uuid: run.uuid })))
        return { created: false, written: null };
      throw error;
    }
  }

  async discardUnstarted(runUuid: string): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      const [run] = (await manager.query('SELECT workflow_uuid FROM workflow_runs WHERE uuid = ? FOR UPDATE', [runUuid])) as {
        workflow_uuid: string;
      }[];
      if (!run) return;
      await giveRunPlace(manager, runUuid);
      // Its step rows, its own trigger output and its audit go with it (ON DELETE CASCADE).
      await manager.query('DELETE FROM workflow_runs WHERE uuid = ?', [runUuid]);
      await manager.query('UPDATE workflows SET total_runs = GREATEST(total_runs - 1, 0) WHERE uuid = ?', [run.workflow_uuid]);
    });
  }

  /** The run's rows in one transaction; the database time they were written at. */
  private async insertRun(run: NewRun): Promise<Date> {
    const write = () =>
      this.oneTrip.transactionChecked(startStatements(run, this.maxRunsInFlight), (results) => startChecked(results, this.maxRunsInFlight));
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof NoQuotaRow)) throw error;
      // A user's first run: the counter row is made outside the transaction, which then only ever updates
      // it (an INSERT IGNORE inside would take a shared lock two concurrent starts both hold and both need
      // to upgrade).
      await this.dataSource.query('INSERT IGNORE INTO user_quotas (user_id, runs_in_flight) VALUES (?, 0)', [run.user_id]);
      return write();
    }
  }

  async staleInFlight(olderThanSeconds: number, limit: number, after: StaleRun | null = null): Promise<StaleRun[]> {
    const page = after ? 'AND (created_at > ? OR (created_at = ? AND uuid > ?))' : '';
    return this.dataSource.query(
      `SELECT uuid, user_id, temporal_workflow_id, created_at FROM workflow_runs WHERE status IN (?)
         AND created_at < NOW(3) - INTERVAL ? SECOND AND created_at > NOW(3) - INTERVAL 1 DAY ${page} ORDER BY created_at, uuid LIMIT ?`,
      [IN_FLIGHT_RUN_STATUSES, olderThanSeconds, ...(after ? [after.created_at, after.created_at, after.uuid] : []), limit],
    );
  }

  async setBudget(runUuid: string, budget: BudgetState, status: 'running' | 'awaiting_input'): Promise<void> {
    await this.dataSource.query('UPDATE workflow_runs SET budget = ?, status = ? WHERE uuid = ? AND status IN (?, ?)', [
      JSON.stringify(budget),
      status,
      runUuid,
      'running',
      'awaiting_input',
    ]);
  }

  async findRun(userId: string, uuid: string): Promise<RunRecord | null> {
    const run = await this.dataSource.manager.findOneBy(RunEntity, { uuid, user_id: userId });
    return run && runOf(run);
  }

  find(userId: string, uuid: string): Promise<RunWithSteps | null> {
    return this.withSteps.find(userId, uuid);
  }

  async list(userId: string, filter: RunFilter, request: PageRequest): Promise<Page<RunRecord>> {
    // Every column but the definition snapshot and a conversation's messages (large, and not shown in lists).
    const columns = this.dataSource
      .getMetadata(RunEntity)
      .columns.map((column) => column.propertyName)
      .filter((name) => name !== 'definition' && name !== 'conversation_messages');
    const query = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('row')
      .select(columns.map((name) => `row.${name}`))
      .where('row.user_id = :userId', { userId });
    if (filter.status) query.andWhere('row.status = :status', { status: filter.status });
    if (filter.workflow_uuid) query.andWhere('row.workflow_uuid = :workflowUuid', { workflowUuid: filter.workflow_uuid });
    if (filter.schedule_id) query.andWhere('row.schedule_id = :scheduleId', { scheduleId: filter.schedule_id });
    const page = await pageOf(query, 'created_at', request);
    return { ...page, items: page.items.map(runOf) };
  }

  async end(ending: RunEnding): Promise<boolean> {
    const results = await this.oneTrip.transaction(runEndStatements(this.dataSource.manager, ending));
    return affectedRows(results[results.length - 1]) > 0;
  }

  async recordNotification(runUuid: string, notification: NotificationRecord): Promise<void> {
    await runTransaction(this.dataSource, (manager) =>
      manager.update(RunEntity, { uuid: runUuid }, { notification: notification as never }),
    );
  }
}

import type { DataSource } from 'typeorm';
import { ScheduleEntity } from './schedule.entity';

export interface ScheduleRecord {
  id: string;
  user_id: string;
  workflow_uuid: string;
  schedule_type: string;
  /** The timing as the user gave it (Temporal describes crons back as calendars). */
  timing: Record<string, unknown>;
  note: string | null;
  created_at: Date;
}

/** The most schedules a workflow, and a user, may hold (SCHEDULES_MAX_PER_WORKFLOW, SCHEDULES_MAX_PER_USER). */
export interface ScheduleCaps {
  perWorkflow: number;
  perUser: number;
}

/** Which cap refused a schedule, or null when it was inserted. */
export type ScheduleCapHit = keyof ScheduleCaps | null;

/** Who owns which Temporal Schedule; the schedule's state itself is read from Temporal. */
export abstract class ScheduleRepository {
  /**
   * Inserts the schedule unless its workflow or its user holds as many as `caps` allow already: exact
   * however many creates race, since each counts under a lock on the user's `user_quotas` row.
   */
  abstract insertWithinCaps(schedule: Omit<ScheduleRecord, 'created_at'>, caps: ScheduleCaps): Promise<ScheduleCapHit>;
  abstract find(userId: string, id: string): Promise<ScheduleRecord | null>;
  abstract listForWorkflow(userId: string, workflowUuid: string): Promise<ScheduleRecord[]>;
  abstract update(id: string, change: Partial<Pick<ScheduleRecord, 'timing' | 'note'>>): Promise<void>;
  abstract delete(id: string): Promise<void>;
}

export class TypeormScheduleRepository extends ScheduleRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  private get schedules() {
    return this.dataSource.getRepository(ScheduleEntity);
  }

  async insertWithinCaps(schedule: Omit<ScheduleRecord, 'created_at'>, caps: ScheduleCaps): Promise<ScheduleCapHit> {
    // Outside the transaction: inserting the row there would take a shared lock that two creates could
    // each hold and then both wait to upgrade.
    await this.dataSource.query('INSERT IGNORE INTO user_quotas (user_id, runs_in_flight) VALUES (?, 0)', [schedule.user_id]);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT user_id FROM user_quotas WHERE user_id = ? FOR UPDATE', [schedule.user_id]);
      const [held] = await manager.query(
        'SELECT COUNT(*) AS of_user, COALESCE(SUM(workflow_uuid = ?), 0) AS of_workflow FROM schedules WHERE user_id = ?',
        [schedule.workflow_uuid, schedule.user_id],
      );
      if (Number(held.of_workflow) >= caps.perWorkflow) return 'perWorkflow';
      if (Number(held.of_user) >= caps.perUser) return 'perUser';
      await manager.getRepository(ScheduleEntity).insert(schedule as never);
      return null;
    });
  }

  find(userId: string, id: string): Promise<ScheduleRecord | null> {
    return this.schedules.findOneBy({ user_id: userId, id });
  }

  listForWorkflow(userId: string, workflowUuid: string): Promise<ScheduleRecord[]> {
    return this.schedules.find({ where: { user_id: userId, workflow_uuid: workflowUuid }, order: { created_at: 'ASC' } });
  }

  async update(id: string, change: Partial<Pick<ScheduleRecord, 'timing' | 'note'>>): Promise<void> {
    if (Object.keys(change).length) await this.schedules.update({ id }, change as never);
  }

  async delete(id: string): Promise<void> {
    await this.schedules.delete({ id });
  }
}

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

/** Who owns which Temporal Schedule; the schedule's state itself is read from Temporal. */
export abstract class ScheduleRepository {
  abstract insert(schedule: Omit<ScheduleRecord, 'created_at'>): Promise<void>;
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

  async insert(schedule: Omit<ScheduleRecord, 'created_at'>): Promise<void> {
    await this.schedules.insert(schedule as never);
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

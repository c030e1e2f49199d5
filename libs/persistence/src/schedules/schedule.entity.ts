import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

@Entity('schedules')
export class ScheduleEntity {
  @PrimaryColumn({ type: 'varchar' }) id!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'char', length: 36 }) workflow_uuid!: string;
  @Column({ type: 'varchar' }) schedule_type!: string;
  @Column({ type: 'longtext', transformer: jsonColumn }) timing!: Record<string, unknown>;
  @Column({ type: 'text', nullable: true }) note!: string | null;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
}

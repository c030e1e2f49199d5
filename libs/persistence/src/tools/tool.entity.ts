import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

@Entity('tools')
export class ToolEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'text' }) description!: string;
  @Column({ type: 'longtext', transformer: jsonColumn }) parameters!: Record<string, unknown>;
  @Column({ type: 'varchar' }) transport!: string;
  @Column({ type: 'text', nullable: true }) endpoint_url!: string | null;
  @Column({ type: 'int' }) timeout_ms!: number;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) side_effect_free!: boolean;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';
import type { ModelProvider } from '@app/contracts';

/** workflow_agent_states: one assistant session. */
@Entity('workflow_agent_states')
export class AssistantSessionEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) mode!: string;
  @Column({ type: 'char', length: 36, nullable: true }) source_workflow_uuid!: string | null;
  @Column({ type: 'varchar', nullable: true }) provider!: ModelProvider | null;
  @Column({ type: 'varchar', nullable: true }) model!: string | null;
  @Column({ type: 'varchar' }) stage!: string;
  @Column({ type: 'varchar', nullable: true }) previous_stage!: string | null;
  @Column({ type: 'text' }) intent_summary!: string;
  @Column({ type: 'longtext', transformer: jsonColumn }) conversations!: unknown[];
  @Column({ type: 'longtext', transformer: jsonColumn }) pending_questions!: string[];
  @Column({ type: 'longtext', transformer: jsonColumn }) generation!: unknown[];
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) candidate!: unknown;
  @Column({ type: 'char', length: 36, nullable: true }) workflow_uuid!: string | null;
  @Column({ type: 'text', nullable: true }) final_error_message!: string | null;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) is_open!: boolean;
  @Column({ type: 'char', length: 64, nullable: true }) base_fingerprint!: string | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) failed_attempt!: unknown;
  @Column({ type: 'int' }) prompt_tokens!: number;
  @Column({ type: 'int' }) completion_tokens!: number;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) updated_at!: Date;
}

export const assistantEntities = [AssistantSessionEntity];

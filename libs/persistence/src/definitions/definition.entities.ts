import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GraphDefinition, JsonObject, ToolDriftPolicy, WorkflowStatus } from '@app/contracts';
import type { ToolManifest } from '@app/domain';
import { jsonColumn } from '../json-column';
import type { RunBudget } from '@app/contracts';

@Entity('workflows')
export class WorkflowEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'text' }) description!: string;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) is_active!: boolean;
  @Column({ type: 'char', length: 36, nullable: true }) trigger_uuid!: string | null;
  /** Step uuids in run order. */
  @Column({ type: 'longtext', transformer: jsonColumn }) steps!: string[];
  @Column({ type: 'varchar' }) status!: WorkflowStatus;
  /** null: the steps run as an ordered chain. */
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) graph!: GraphDefinition | null;
  @Column({ type: 'text', nullable: true }) notify_url!: string | null;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) notify_on_complete!: boolean;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) notify_on_failure!: boolean;
  @Column({ type: 'varchar' }) tool_drift!: ToolDriftPolicy;
  /** The agents' tools as they were at the last save, and their sha256; null for workflows saved before manifests. */
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) tool_manifest!: ToolManifest | null;
  @Column({ type: 'char', length: 64, nullable: true }) tool_manifest_hash!: string | null;
  @Column({ type: 'int', nullable: true }) output_history_size!: number | null;
  /** The version the definition is at now (workflow_versions): written with each save's version. */
  @Column({ type: 'int' }) version!: number;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) input_schema!: JsonObject | null;
  /** The budget each run starts with unless its start names one. */
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) budget!: RunBudget | null;
  /** Signs run-end notifications; set once when the workflow is created. */
  @Column({ type: 'varchar', nullable: true, update: false }) notify_secret!: string | null;
  /** Written only by atomic increments in the run repository. */
  @Column({ type: 'int', insert: false, update: false }) total_runs!: number;
  @Column({ type: 'int', insert: false, update: false }) successful_runs!: number;
  @Column({ type: 'int', insert: false, update: false }) failed_runs!: number;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) updated_at!: Date;
}

/** One save of a workflow: immutable, numbered from 1 (workflow_versions). */
@Entity('workflow_versions')
export class WorkflowVersionEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) workflow_uuid!: string;
  @PrimaryColumn({ type: 'int' }) version!: number;
  @Column({ type: 'varchar' }) user_id!: string;
  /** A WorkflowDefinition as it was saved. */
  @Column({ type: 'longtext', transformer: jsonColumn }) definition!: unknown;
  @Column({ type: 'char', length: 64 }) content_hash!: string;
  @Column({ type: 'varchar', nullable: true }) change_description!: string | null;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
}

@Entity('workflow_steps')
export class WorkflowStepEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) workflow_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) type!: string;
  /** Every field of the step definition but uuid, name and type. */
  @Column({ type: 'longtext', transformer: jsonColumn }) details!: Record<string, unknown>;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) updated_at!: Date;
}

@Entity('step_summaries')
export class StepSummaryEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) step_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'char', length: 64 }) source_hash!: string;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'text', nullable: true }) summary!: string | null;
  @Column({ type: 'text', nullable: true }) error_message!: string | null;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) updated_at!: Date;
}

@Entity('triggers')
export class TriggerEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) workflow_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) type!: string;
  @Column({ type: 'longtext', transformer: jsonColumn }) details!: Record<string, unknown>;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) updated_at!: Date;
}

@Entity('trigger_secrets')
export class TriggerSecretEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) trigger_uuid!: string;
  @Column({ type: 'varchar' }) secret!: string;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
}

@Entity('trigger_events')
export class TriggerEventEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) trigger_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar', nullable: true }) delivery_key!: string | null;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) matched!: boolean;
  @Column({ type: 'char', length: 36, nullable: true }) run_uuid!: string | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) body!: unknown;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) received_at!: Date;
}

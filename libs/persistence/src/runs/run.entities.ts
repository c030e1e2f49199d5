import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

const datetime = { type: 'datetime', precision: 3, nullable: true } as const;

/** Dollars (DECIMAL(20,9), which the driver reads as a string); null: a call whose model has no price, or a sum with one. */
const cost = {
  type: 'decimal',
  precision: 20,
  scale: 9,
  nullable: true,
  transformer: { to: (v: number | null | undefined) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
} as const;

@Entity('workflow_runs')
export class RunEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'char', length: 36 }) workflow_uuid!: string;
  @Column({ type: 'varchar' }) workflow_name!: string;
  @Column({ type: 'int', nullable: true }) workflow_version!: number | null;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'longtext', transformer: jsonColumn }) definition!: unknown;
  @Column({ type: 'char', length: 36, nullable: true }) trigger_output_id!: string | null;
  @Column({ type: 'varchar' }) temporal_workflow_id!: string;
  @Column({ type: 'varchar', nullable: true }) schedule_id!: string | null;
  @Column({ type: 'char', length: 36, nullable: true }) parent_run_uuid!: string | null;
  @Column({ type: 'char', length: 36, nullable: true }) parent_step_uuid!: string | null;
  @Column({ type: 'char', length: 36, nullable: true }) resumed_from_step_uuid!: string | null;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) dry_run!: boolean;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) budget!: unknown;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) spend_pause!: unknown;
  /** The guard rail the run ended on (GuardRailHit), read by the run_events trigger for guard_rail_hit. */
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) guard_rail!: unknown;
  @Column({ type: 'text', nullable: true }) error_message!: string | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) notification!: unknown;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) tool_drift!: unknown;
  @Column({ type: 'char', length: 36, nullable: true }) replay_of!: string | null;
  @Column({ type: 'tinyint', transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: number) => v === 1 } }) replay_offline!: boolean;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) conversation_messages!: unknown;
  @Column({ type: 'int' }) prompt_tokens!: number;
  @Column({ type: 'int' }) completion_tokens!: number;
  @Column({ type: 'int' }) total_tokens!: number;
  @Column(cost) cost!: number | null;
  @Column({ ...datetime, insert: false }) started_at!: Date;
  @Column(datetime) finished_at!: Date | null;
  @Column({ ...datetime, insert: false, update: false }) created_at!: Date;
  @Column({ ...datetime, insert: false, update: false }) updated_at!: Date;
}

@Entity('workflow_step_instances')
export class StepInstanceEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) run_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'char', length: 36 }) step_definition_uuid!: string;
  @Column({ type: 'varchar' }) step_name!: string;
  @Column({ type: 'varchar' }) step_type!: string;
  @Column({ type: 'int' }) position!: number;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) input_data!: unknown;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) model_messages!: unknown[] | null;
  @Column({ type: 'char', length: 36, nullable: true }) output_id!: string | null;
  @Column({ type: 'char', length: 36, nullable: true }) carried_from_run_uuid!: string | null;
  @Column({ type: 'text', nullable: true }) error_message!: string | null;
  @Column({ type: 'int' }) attempts!: number;
  @Column({ type: 'int' }) prompt_tokens!: number;
  @Column({ type: 'int' }) completion_tokens!: number;
  @Column({ type: 'int' }) total_tokens!: number;
  @Column(cost) cost!: number | null;
  @Column({ type: 'int', nullable: true }) duration_ms!: number | null;
  @Column(datetime) started_at!: Date | null;
  @Column(datetime) finished_at!: Date | null;
  @Column({ type: 'char', length: 36, nullable: true }) parent_instance_uuid!: string | null;
  @Column({ type: 'int', nullable: true }) execution_index!: number | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) loop_state!: unknown;
}

@Entity('step_outputs')
export class StepOutputEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) run_uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'char', length: 36, nullable: true }) step_instance_uuid!: string | null;
  @Column({ type: 'longtext', transformer: jsonColumn }) raw_data!: unknown;
  @Column({ type: 'text' }) summary!: string;
  @Column({ type: 'longtext', nullable: true }) markdown_representation!: string | null;
  @Column({ type: 'int' }) size_bytes!: number;
  @Column({ ...datetime, insert: false, update: false }) created_at!: Date;
}

@Entity('model_calls')
export class ModelCallEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) run_uuid!: string;
  @Column({ type: 'char', length: 36 }) step_instance_uuid!: string;
  @Column({ type: 'int' }) turn!: number;
  @Column({ type: 'int' }) attempt!: number;
  @Column({ type: 'varchar', nullable: true }) provider!: string | null;
  @Column({ type: 'varchar' }) model!: string;
  @Column({ type: 'char', length: 64, nullable: true }) request_hash!: string | null;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'text', nullable: true }) error_message!: string | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) request!: unknown;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) response!: unknown;
  @Column({ type: 'char', length: 36, nullable: true }) replayed_from!: string | null;
  @Column({ type: 'int' }) prompt_tokens!: number;
  @Column({ type: 'int' }) completion_tokens!: number;
  @Column({ type: 'int' }) cached_tokens!: number;
  @Column({ type: 'int' }) total_tokens!: number;
  @Column(cost) cost!: number | null;
  @Column({ type: 'char', length: 36, nullable: true }) cached_from!: string | null;
  @Column({ type: 'int', nullable: true }) duration_ms!: number | null;
  @Column({ type: 'datetime', precision: 3 }) started_at!: Date;
  @Column(datetime) finished_at!: Date | null;
}

@Entity('tool_calls')
export class ToolCallEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 36 }) run_uuid!: string;
  @Column({ type: 'char', length: 36 }) step_instance_uuid!: string;
  @Column({ type: 'varchar' }) tool_call_id!: string;
  @Column({ type: 'int' }) attempt!: number;
  @Column({ type: 'varchar' }) tool_name!: string;
  @Column({ type: 'varchar', nullable: true }) mcp_server!: string | null;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) input!: unknown;
  @Column({ type: 'longtext', nullable: true, transformer: jsonColumn }) output!: unknown;
  @Column({ type: 'char', length: 36, nullable: true }) replayed_from!: string | null;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'text', nullable: true }) error_message!: string | null;
  @Column({ type: 'int', nullable: true }) duration_ms!: number | null;
  @Column({ type: 'datetime', precision: 3 }) started_at!: Date;
  @Column(datetime) finished_at!: Date | null;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../json-column';

const datetime = { type: 'datetime', precision: 3, insert: false, update: false } as const;

@Entity('mcp_servers')
export class McpServerEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) transport!: string;
  @Column({ type: 'text', nullable: true }) url!: string | null;
  /** The headers as JSON, sealed (SecretBox). */
  @Column({ type: 'text', nullable: true }) sealed_headers!: string | null;
  @Column({ type: 'text', nullable: true }) command!: string | null;
  @Column({ type: 'longtext', transformer: jsonColumn }) args!: string[];
  /** The environment as JSON, sealed (SecretBox). */
  @Column({ type: 'text', nullable: true }) sealed_env!: string | null;
  @Column({ type: 'int' }) timeout_ms!: number;
  @Column(datetime) created_at!: Date;
  @Column(datetime) updated_at!: Date;
}

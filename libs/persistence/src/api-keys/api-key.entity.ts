import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'char', length: 36 }) uuid!: string;
  @Column({ type: 'char', length: 64 }) key_hash!: string;
  @Column({ type: 'varchar' }) key_prefix!: string;
  @Column({ type: 'varchar' }) user_id!: string;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'datetime', precision: 3, insert: false, update: false }) created_at!: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) revoked_at!: Date | null;
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

// Identities compared exactly, and a uuid never passed from one user to another.
//
// - Every user id, uuid and other key a row is found by goes to utf8mb4_bin: under utf8mb4_unicode_ci
//   `alice` found `Alice`'s and `Alicé`'s rows while the code (the codec, the run audit) compared exactly.
//   utf8mb4_bin still ignores trailing spaces (PAD SPACE, the only binary collation MySQL 8 and MariaDB
//   share): the api-key CLI refuses user ids that end with one, and uuids are checked before they are stored.
// - uuid_claims keeps the user each workflow, step and trigger uuid was first saved by, after the row is
//   gone: clients choose these uuids, and a deleted trigger's uuid taken by someone else received its old
//   owner's deliveries. Filled here from every table that remembers one.
// - A trigger's secret, its accepted signatures and its deliveries get a foreign key to it and go with it;
//   those left by deleted triggers go now, and so does a secret older than its trigger's workflow (a
//   secret another trigger of that uuid left behind, which the uuid's new holder would have accepted).
// - webhook_signatures remembers the delivery key a signature came with, so an identical repeat (same
//   signature, same Idempotency-Key) is answered with its run instead of refused as a replay.

/** Parents before the tables whose foreign keys name them: each table's keys are added back with its columns. */
const IDENTITY_COLUMNS: [table: string, columns: Record<string, string>][] = [
  ['workflows', { uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL', trigger_uuid: 'CHAR(36) NULL' }],
  ['workflow_steps', { uuid: 'CHAR(36) NOT NULL', workflow_uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' }],
  ['triggers', { uuid: 'CHAR(36) NOT NULL', workflow_uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' }],
  ['trigger_secrets', { trigger_uuid: 'CHAR(36) NOT NULL' }],
  ['webhook_signatures', { trigger_uuid: 'CHAR(36) NOT NULL', signature: 'CHAR(64) NOT NULL' }],
  [
    'trigger_events',
    {
      uuid: 'CHAR(36) NOT NULL',
      trigger_uuid: 'CHAR(36) NOT NULL',
      user_id: 'VARCHAR(191) NOT NULL',
      delivery_key: 'VARCHAR(200) NULL',
      run_uuid: 'CHAR(36) NULL',
    },
  ],
  ['step_summaries', { step_uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' }],
  [
    'api_keys',
    { uuid: 'CHAR(36) NOT NULL', key_hash: 'CHAR(64) NOT NULL', key_prefix: 'VARCHAR(16) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' },
  ],
  ['schedules', { id: 'VARCHAR(100) NOT NULL', user_id: 'VARCHAR(191) NOT NULL', workflow_uuid: 'CHAR(36) NOT NULL' }],
  ['tools', { uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' }],
  ['mcp_servers', { uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL' }],
  ['user_quotas', { user_id: 'VARCHAR(191) NOT NULL' }],
  [
    'workflow_runs',
    {
      uuid: 'CHAR(36) NOT NULL',
      user_id: 'VARCHAR(191) NOT NULL',
      workflow_uuid: 'CHAR(36) NOT NULL',
      trigger_output_id: 'CHAR(36) NULL',
      temporal_workflow_id: 'VARCHAR(100) NOT NULL',
      schedule_id: 'VARCHAR(100) NULL',
      parent_run_uuid: 'CHAR(36) NULL',
      resumed_from_step_uuid: 'CHAR(36) NULL',
    },
  ],
  [
    'workflow_step_instances',
    {
      uuid: 'CHAR(36) NOT NULL',
      run_uuid: 'CHAR(36) NOT NULL',
      user_id: 'VARCHAR(191) NOT NULL',
      step_definition_uuid: 'CHAR(36) NOT NULL',
      output_id: 'CHAR(36) NULL',
      carried_from_run_uuid: 'CHAR(36) NULL',
      parent_instance_uuid: 'CHAR(36) NULL',
    },
  ],
  [
    'step_outputs',
    { uuid: 'CHAR(36) NOT NULL', run_uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL', step_instance_uuid: 'CHAR(36) NULL' },
  ],
  ['model_calls', { uuid: 'CHAR(36) NOT NULL', run_uuid: 'CHAR(36) NOT NULL', step_instance_uuid: 'CHAR(36) NOT NULL' }],
  [
    'tool_calls',
    {
      uuid: 'CHAR(36) NOT NULL',
      run_uuid: 'CHAR(36) NOT NULL',
      step_instance_uuid: 'CHAR(36) NOT NULL',
      tool_call_id: 'VARCHAR(200) NOT NULL',
    },
  ],
  [
    'workflow_agent_states',
    { uuid: 'CHAR(36) NOT NULL', user_id: 'VARCHAR(191) NOT NULL', source_workflow_uuid: 'CHAR(36) NULL', workflow_uuid: 'CHAR(36) NULL' },
  ],
  ['assistant_calls', { session_uuid: 'CHAR(36) NOT NULL', call_key: 'VARCHAR(120) NOT NULL' }],
  ['assistant_events', { session_uuid: 'CHAR(36) NOT NULL', event_key: 'VARCHAR(160) NOT NULL' }],
];

interface ForeignKey {
  name: string;
  table: string;
  column: string;
  parent: string;
}

/** Every foreign key between these tables (a column cannot change collation under one), all ON DELETE CASCADE. */
const EARLIER_FOREIGN_KEYS: ForeignKey[] = [
  { name: 'fk_workflow_steps_workflow', table: 'workflow_steps', column: 'workflow_uuid', parent: 'workflows' },
  { name: 'fk_triggers_workflow', table: 'triggers', column: 'workflow_uuid', parent: 'workflows' },
  { name: 'fk_step_instances_run', table: 'workflow_step_instances', column: 'run_uuid', parent: 'workflow_runs' },
  { name: 'fk_outputs_run', table: 'step_outputs', column: 'run_uuid', parent: 'workflow_runs' },
  { name: 'fk_model_calls_run', table: 'model_calls', column: 'run_uuid', parent: 'workflow_runs' },
  { name: 'fk_tool_calls_run', table: 'tool_calls', column: 'run_uuid', parent: 'workflow_runs' },
  { name: 'fk_assistant_calls_session', table: 'assistant_calls', column: 'session_uuid', parent: 'workflow_agent_states' },
  { name: 'fk_assistant_events_session', table: 'assistant_events', column: 'session_uuid', parent: 'workflow_agent_states' },
];

/** What a trigger takes with it when it goes. */
const TRIGGER_FOREIGN_KEYS: ForeignKey[] = ['trigger_secrets', 'webhook_signatures', 'trigger_events'].map((table) => ({
  name: `fk_${table}_trigger`,
  table,
  column: 'trigger_uuid',
  parent: 'triggers',
}));

/** Those of `keys` the schema has now: a migration stopped halfway may have dropped some. */
async function present(db: QueryRunner, keys: ForeignKey[]): Promise<ForeignKey[]> {
  const rows = (await db.query(
    'SELECT CONSTRAINT_NAME AS name FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()',
  )) as { name: string }[];
  return keys.filter((key) => rows.some((row) => row.name === key.name));
}

/**
 * Drops `keys` where they are, then rewrites each table once (parents first): its identity columns in
 * `collation`, its extra changes, and its foreign keys among `keys` added back.
 */
async function recollate(db: QueryRunner, collation: string, keys: ForeignKey[], extra: Record<string, string[]> = {}): Promise<void> {
  for (const key of await present(db, keys)) await db.query(`ALTER TABLE ${key.table} DROP FOREIGN KEY ${key.name}`);
  for (const [table, columns] of IDENTITY_COLUMNS) {
    const changes = [
      ...Object.entries(columns).map(([column, type]) => {
        const [kind, ...nullability] = type.split(' ');
        return `MODIFY ${column} ${kind} CHARACTER SET utf8mb4 COLLATE ${collation} ${nullability.join(' ')}`;
      }),
      ...(extra[table] ?? []),
      ...keys
        .filter((key) => key.table === table)
        .map((key) => `ADD CONSTRAINT ${key.name} FOREIGN KEY (${key.column}) REFERENCES ${key.parent} (uuid) ON DELETE CASCADE`),
    ];
    await db.query(`ALTER TABLE ${table} ${changes.join(', ')}`);
  }
}

export class ExactIdentities1764000600000 implements MigrationInterface {
  name = 'ExactIdentities1764000600000';

  async up(db: QueryRunner): Promise<void> {
    // Each step can run again: DDL commits as it goes, so a migration stopped halfway is simply run again.
    await db.query(`CREATE TABLE IF NOT EXISTS uuid_claims (
      uuid CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
      user_id VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      kind VARCHAR(20) NOT NULL,
      claimed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    // The holders of today's rows first: a uuid two users have used keeps the one who has it now.
    const sources = [
      "SELECT uuid, user_id, 'workflow' FROM workflows",
      "SELECT uuid, user_id, 'step' FROM workflow_steps",
      "SELECT uuid, user_id, 'trigger' FROM triggers",
      "SELECT trigger_uuid, MIN(user_id), 'trigger' FROM trigger_events GROUP BY trigger_uuid",
      "SELECT workflow_uuid, MIN(user_id), 'workflow' FROM workflow_runs GROUP BY workflow_uuid",
      "SELECT step_definition_uuid, MIN(user_id), 'step' FROM workflow_step_instances GROUP BY step_definition_uuid",
    ];
    for (const source of sources) await db.query(`INSERT IGNORE INTO uuid_claims (uuid, user_id, kind) ${source}`);

    for (const { table } of TRIGGER_FOREIGN_KEYS)
      await db.query(`DELETE FROM ${table} WHERE trigger_uuid NOT IN (SELECT uuid FROM triggers)`);
    await db.query(
      `DELETE s FROM trigger_secrets s JOIN triggers t ON t.uuid = s.trigger_uuid JOIN workflows w ON w.uuid = t.workflow_uuid WHERE s.created_at < w.created_at`,
    );
    await db.query(
      'DELETE e FROM trigger_events e JOIN triggers t ON t.uuid = e.trigger_uuid WHERE e.user_id <> t.user_id COLLATE utf8mb4_bin',
    );

    const deliveryKey = (await db.query(
      "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'webhook_signatures' AND COLUMN_NAME = 'delivery_key'",
    )) as unknown[];
    await recollate(db, 'utf8mb4_bin', [...EARLIER_FOREIGN_KEYS, ...TRIGGER_FOREIGN_KEYS], {
      webhook_signatures: deliveryKey.length ? [] : ['ADD COLUMN delivery_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL'],
    });
  }

  async down(db: QueryRunner): Promise<void> {
    for (const key of await present(db, TRIGGER_FOREIGN_KEYS)) await db.query(`ALTER TABLE ${key.table} DROP FOREIGN KEY ${key.name}`);
    await recollate(db, 'utf8mb4_unicode_ci', EARLIER_FOREIGN_KEYS, { webhook_signatures: ['DROP COLUMN delivery_key'] });
    await db.query('DROP TABLE uuid_claims');
  }
}

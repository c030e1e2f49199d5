// node dist/bench/identity-migration.js [runs] (after npm run build; DATABASE_URL names the server): how long
// the ExactIdentities migration holds a database of `runs` runs (default 50,000; 3 steps, outputs and model
// calls each, a workflow per 10 runs, a delivery per run). It rewrites every table with an identity column
// (a copying ALTER: writes wait meanwhile), so this is the downtime to plan for. Works in a scratch database
// of its own, dropped at the end.
import { performance } from 'node:perf_hooks';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/persistence';
import { migrations } from '../libs/persistence/src/migrations';
import { ExactIdentities1764000600000 } from '../libs/persistence/src/migrations/1764000600000-exact-identities';
import { ensureDatabase } from '../libs/persistence/src/migrate';

const uuidOf = (prefix: string, n: string) => `CONCAT('${prefix}-0000-4000-8000-', LPAD(LOWER(HEX(${n})), 12, '0'))`;
/** The owner of workflow `n`: 100 users, half of them a capitalised look-alike of the other half. */
const userOf = (n: string) => `CONCAT(IF((${n}) % 2 = 0, 'user-', 'User-'), FLOOR((${n}) / 2) % 50)`;

async function fill(db: DataSource, runs: number): Promise<void> {
  await db.query('CREATE TABLE nums (n INT NOT NULL PRIMARY KEY)');
  await db.query('INSERT INTO nums VALUES (0)');
  for (let size = 1; size < runs * 3; size *= 2)
    await db.query('INSERT INTO nums SELECT n + ? FROM nums WHERE n + ? < ?', [size, size, runs * 3]);
  const workflows = Math.ceil(runs / 10);
  await db.query(
    `INSERT INTO workflows (uuid, user_id, name, description, is_active, steps) SELECT ${uuidOf('00000001', 'n')}, ${userOf('n')}, 'wf', '', 1, '[]' FROM nums WHERE n < ?`,
    [workflows],
  );
  await db.query(
    `INSERT INTO workflow_steps (uuid, workflow_uuid, user_id, name, type, details) SELECT ${uuidOf('00000002', 'n')}, ${uuidOf('00000001', 'FLOOR(n / 3)')}, ${userOf('FLOOR(n / 3)')}, CONCAT('s', n % 3), 'custom_llm', '{}' FROM nums WHERE n < ?`,
    [workflows * 3],
  );
  await db.query(
    `INSERT INTO triggers (uuid, workflow_uuid, user_id, type, details) SELECT ${uuidOf('00000003', 'n')}, ${uuidOf('00000001', 'n')}, ${userOf('n')}, 'webhook', '{}' FROM nums WHERE n < ?`,
    [workflows],
  );
  await db.query(`INSERT INTO trigger_secrets (trigger_uuid, secret) SELECT ${uuidOf('00000003', 'n')}, 'sealed' FROM nums WHERE n < ?`, [
    workflows,
  ]);
  await db.query(
    `INSERT INTO trigger_events (uuid, trigger_uuid, user_id, matched, body) SELECT ${uuidOf('00000004', 'n')}, ${uuidOf('00000003', 'n % ' + workflows)}, ${userOf(`n % ${workflows}`)}, 1, '{"event": 1}' FROM nums WHERE n < ?`,
    [runs],
  );
  await db.query(
    `INSERT INTO workflow_runs (uuid, user_id, workflow_uuid, workflow_name, status, definition, temporal_workflow_id) SELECT ${uuidOf('00000005', 'n')}, 'user-1', ${uuidOf('00000001', 'n % ' + workflows)}, 'wf', 'completed', '{}', CONCAT('run-', n) FROM nums WHERE n < ?`,
    [runs],
  );
  await db.query(
    `INSERT INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status) SELECT ${uuidOf('00000006', 'n')}, ${uuidOf('00000005', 'FLOOR(n / 3)')}, 'user-1', ${uuidOf('00000002', 'n % ' + workflows * 3)}, 'step', 'custom_llm', n % 3, 'completed' FROM nums`,
  );
  await db.query(
    `INSERT INTO step_outputs (uuid, run_uuid, user_id, step_instance_uuid, raw_data, summary, size_bytes) SELECT ${uuidOf('00000007', 'n')}, ${uuidOf('00000005', 'FLOOR(n / 3)')}, 'user-1', ${uuidOf('00000006', 'n')}, '"an answer"', 'an answer', 11 FROM nums`,
  );
  await db.query(
    `INSERT INTO model_calls (uuid, run_uuid, step_instance_uuid, turn, attempt, model, status, started_at) SELECT ${uuidOf('00000008', 'n')}, ${uuidOf('00000005', 'FLOOR(n / 3)')}, ${uuidOf('00000006', 'n')}, 0, 1, 'model', 'completed', NOW(3) FROM nums`,
  );
  await db.query('DROP TABLE nums');
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 50_000);
  const url = new URL(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/stepwise');
  url.pathname = '/stepwise_bench_identities';
  await ensureDatabase(url.toString());
  const through = migrations.indexOf(ExactIdentities1764000600000);
  const before = await new DataSource({ ...dataSourceOptions(url.toString()), migrations: migrations.slice(0, through) }).initialize();
  try {
    await before.runMigrations({ transaction: 'each' });
    const filling = performance.now();
    await fill(before, runs);
    console.log(
      `filled ${runs} runs, ${runs * 3} step rows, outputs and model calls in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
    );
  } finally {
    await before.destroy();
  }
  const db = await new DataSource({ ...dataSourceOptions(url.toString()), migrations: migrations.slice(0, through + 1) }).initialize();
  try {
    const start = performance.now();
    await db.runMigrations({ transaction: 'each' });
    const seconds = (performance.now() - start) / 1000;
    const [{ claims }] = (await db.query('SELECT COUNT(*) AS claims FROM uuid_claims')) as { claims: number }[];
    console.log(`ExactIdentities on ${runs} runs: ${seconds.toFixed(1)} s (${claims} uuids claimed)`);
  } finally {
    await db.destroy();
    const server = new URL(url);
    server.pathname = '/';
    const connection = await createConnection(server.toString());
    await connection.query('DROP DATABASE stepwise_bench_identities').finally(() => connection.end());
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

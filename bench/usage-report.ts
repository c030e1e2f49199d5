// node dist/bench/usage-report.js [--runs 2000] [--calls-per-run 10] [--days 365]: what GET /usage's reads cost
// for one user with a long history (#31). Seeds a new user's runs (copies of a run row already in the database,
// so the database must hold one: run any spec first) and their completed calls spread evenly over --days, then
// times the report's three reads (usageStatements) for ranges of 7 and 92 days, recent and a year back, beside
// the by-day read before (model_calls joined through every run of the user), median of 5 each. DATABASE_URL: a
// migrated database.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { usageStatements } from '../libs/persistence/src/usage/typeorm-usage.repository';
import { runMain } from './support/main';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    'calls-per-run': { type: 'string', default: '10' },
    days: { type: 'string', default: '365' },
  },
});
const RUNS = Number(values.runs);
const CALLS = Number(values['calls-per-run']);
const DAYS = Number(values.days);
const DAY_MS = 86_400_000;

/** The report's read before the index: every call of every run of the user, then filtered by time. */
const BEFORE = `SELECT DATE_FORMAT(m.started_at, '%Y-%m-%d') AS day, COUNT(*) AS calls, COALESCE(SUM(m.cost), 0) AS cost
  FROM workflow_runs r JOIN model_calls m ON m.run_uuid = r.uuid
  WHERE r.user_id = ? AND m.status = 'completed' AND m.started_at >= ? AND m.started_at < ? GROUP BY day ORDER BY day`;

async function seed(db: Connection, userId: string, now: number): Promise<void> {
  const [[template]] = await db.query<RowDataPacket[]>('SELECT * FROM workflow_runs LIMIT 1');
  if (!template) throw new Error('no run row to copy: run a spec against this database first');
  const columns = Object.keys(template).filter((column) => !['uuid', 'user_id', 'created_at', 'temporal_workflow_id'].includes(column));
  for (let first = 0; first < RUNS; first += 200) {
    const runs = Array.from({ length: Math.min(200, RUNS - first) }, (_, i) => ({
      uuid: randomUUID(),
      at: new Date(now - ((first + i + 0.5) / RUNS) * DAYS * DAY_MS),
    }));
    for (const run of runs)
      await db.query(
        `INSERT INTO workflow_runs (uuid, user_id, created_at, temporal_workflow_id, ${columns.join(', ')}) SELECT ?, ?, ?, ?, ${columns.join(', ')} FROM workflow_runs WHERE uuid = ?`,
        [run.uuid, userId, run.at, `bench-${run.uuid}`, template.uuid],
      );
    const calls = runs.flatMap((run) =>
      Array.from({ length: CALLS }, (_, k) => [
        randomUUID(),
        run.uuid,
        randomUUID(),
        1,
        1,
        'openai',
        'gpt-4.1',
        'completed',
        100,
        50,
        150,
        0.0006,
        new Date(run.at.getTime() + k * 60_000),
      ]),
    );
    await db.query(
      `INSERT INTO model_calls (uuid, run_uuid, step_instance_uuid, turn, attempt, provider, model, status, prompt_tokens, completion_tokens, total_tokens, cost, started_at) VALUES ?`,
      [calls],
    );
  }
}

async function timed(db: Connection, sql: string, params: unknown[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = process.hrtime.bigint();
    await db.query(sql, params);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return Math.round(times.sort((a, b) => a - b)[2] * 10) / 10;
}

async function main(): Promise<void> {
  const db = await createConnection(process.env.DATABASE_URL!);
  try {
    const userId = `usage-bench-${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    await seed(db, userId, now);
    const statements = usageStatements();
    const ranges = {
      'last 7 days': [new Date(now - 7 * DAY_MS), new Date(now)],
      'last 92 days': [new Date(now - 92 * DAY_MS), new Date(now)],
      '7 days a year back': [new Date(now - 360 * DAY_MS), new Date(now - 353 * DAY_MS)],
    };
    const results = [];
    for (const [range, [from, to]] of Object.entries(ranges)) {
      const params = [userId, from, to];
      let reads = 0;
      for (const sql of Object.values(statements)) reads += await timed(db, sql, params);
      const [[{ n }]] = await db.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM model_calls WHERE user_id = ? AND started_at >= ? AND started_at < ? AND status = 'completed'",
        params,
      );
      const byDay = await timed(db, statements.byDay, params);
      results.push({
        range,
        calls_in_range: n,
        three_reads_ms: Math.round(reads * 10) / 10,
        by_day_read_ms: byDay,
        before_by_day_read_ms: await timed(db, BEFORE, params),
      });
    }
    console.log(JSON.stringify({ runs: RUNS, calls: RUNS * CALLS, days: DAYS, results }, null, 2));
  } finally {
    await db.end();
  }
}

runMain(main);

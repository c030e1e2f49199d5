import type { SpendLimits } from '@app/domain';
import type { DataSource } from 'typeorm';
import { runStatement, runTransaction } from '../runs/run-sql';
import type { SpendPause } from '../runs/run.records';
import { SpendRepository, type PeriodSpend, type RunReservation, type SpendPausedRun } from './spend.repository';

const dollars = (value: unknown): number => Math.round(Number(value) * 1e9) / 1e9;
const orNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export class TypeormSpendRepository extends SpendRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async ownLimits(userId: string): Promise<SpendLimits> {
    const [row] = (await this.dataSource.query(
      'SELECT daily_spend_limit AS d, monthly_spend_limit AS m FROM user_quotas WHERE user_id = ?',
      [userId],
    )) as { d: string | null; m: string | null }[];
    return { daily: orNull(row?.d), monthly: orNull(row?.m) };
  }

  async setOwnLimits(userId: string, limits: SpendLimits): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO user_quotas (user_id, runs_in_flight, daily_spend_limit, monthly_spend_limit) VALUES (?, 0, ?, ?)
       ON DUPLICATE KEY UPDATE daily_spend_limit = VALUES(daily_spend_limit), monthly_spend_limit = VALUES(monthly_spend_limit)`,
      [userId, limits.daily, limits.monthly],
    );
  }

  async spendOf(userId: string, periods: string[]): Promise<Map<string, PeriodSpend>> {
    const spend = new Map(periods.map((period) => [period, { spent: 0, reserved: 0 }]));
    if (!periods.length) return spend;
    const rows = (await this.dataSource.query('SELECT period, spent, reserved FROM user_spend WHERE user_id = ? AND period IN (?)', [
      userId,
      periods,
    ])) as { period: string; spent: string; reserved: string }[];
    for (const row of rows) spend.set(row.period, { spent: dollars(row.spent), reserved: dollars(row.reserved) });
    return spend;
  }

  async reserve(userId: string, periods: { period: string; limit: number }[], amount: number) {
    const keys = periods.map(({ period }) => period);
    // The rows first, outside the transaction: the lock below then always finds them.
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        `INSERT IGNORE INTO user_spend (user_id, period) VALUES ${keys.map(() => '(?, ?)').join(', ')}`,
        keys.flatMap((key) => [userId, key]),
      ),
    );
    return runTransaction(this.dataSource, async (manager) => {
      const rows = (await manager.query(
        'SELECT period, spent + reserved AS held FROM user_spend WHERE user_id = ? AND period IN (?) FOR UPDATE',
        [userId, keys],
      )) as { period: string; held: string }[];
      const held = new Map(rows.map((row) => [row.period, dollars(row.held)]));
      const full = periods.find(({ period, limit }) => (held.get(period) ?? 0) + amount > limit);
      if (full) return { reserved: false as const, period: full.period, held: held.get(full.period) ?? 0 };
      await manager.query('UPDATE user_spend SET reserved = reserved + ? WHERE user_id = ? AND period IN (?)', [amount, userId, keys]);
      return { reserved: true as const };
    });
  }

  async settle(userId: string, spentIn: string[], cost: number, reservedIn: string[], reserved: number): Promise<void> {
    const rows = [...new Set([...spentIn, ...reservedIn])];
    if (!rows.length || (cost === 0 && reserved === 0)) return;
    // One statement: each row gets the cost when it is a period the call spent in, and gives back the reservation it held.
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        `INSERT INTO user_spend (user_id, period, spent, reserved) VALUES ${rows.map(() => '(?, ?, ?, 0)').join(', ')}
         ON DUPLICATE KEY UPDATE spent = spent + VALUES(spent), reserved = GREATEST(reserved - IF(period IN (?), ?, 0), 0)`,
        [
          ...rows.flatMap((period) => [userId, period, spentIn.includes(period) ? cost : 0]),
          reservedIn.length ? reservedIn : [''],
          reserved,
        ],
      ),
    );
  }

  reserveForRun(runUuid: string, amount: number): Promise<RunReservation> {
    return runTransaction(this.dataSource, async (manager) => {
      const [row] = (await manager.query(
        "SELECT JSON_EXTRACT(budget, '$.max_cost') AS max_cost, cost_spent + cost_reserved AS held FROM workflow_runs WHERE uuid = ? FOR UPDATE",
        [runUuid],
      )) as { max_cost: string | number | null; held: string }[];
      const maxCost = orNull(row?.max_cost ?? null);
      if (maxCost === null) return { limited: false as const };
      const held = dollars(row.held);
      if (held >= maxCost) return { limited: true as const, reserved: false as const, held, max_cost: maxCost };
      await manager.query('UPDATE workflow_runs SET cost_reserved = cost_reserved + ? WHERE uuid = ?', [amount, runUuid]);
      return { limited: true as const, reserved: true as const };
    });
  }

  async settleForRun(runUuid: string, cost: number, reserved: number): Promise<void> {
    await runStatement(this.dataSource, (manager) =>
      manager.query('UPDATE workflow_runs SET cost_spent = cost_spent + ?, cost_reserved = GREATEST(cost_reserved - ?, 0) WHERE uuid = ?', [
        cost,
        reserved,
        runUuid,
      ]),
    );
  }

  async pauseRunForSpend(runUuid: string, pause: SpendPause): Promise<void> {
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        "UPDATE workflow_runs SET status = 'awaiting_input', spend_pause = ? WHERE uuid = ? AND status IN ('running', 'awaiting_input')",
        [JSON.stringify(pause), runUuid],
      ),
    );
  }

  async resumeRunAfterSpend(runUuid: string): Promise<void> {
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        "UPDATE workflow_runs SET status = IF(status = 'awaiting_input', 'running', status), spend_pause = NULL WHERE uuid = ? AND spend_pause IS NOT NULL",
        [runUuid],
      ),
    );
  }

  spendPausedRuns(userId: string, limit: number): Promise<SpendPausedRun[]> {
    return this.dataSource.query(
      "SELECT uuid, temporal_workflow_id FROM workflow_runs WHERE user_id = ? AND status = 'awaiting_input' AND spend_pause IS NOT NULL ORDER BY created_at LIMIT ?",
      [userId, limit],
    ) as Promise<SpendPausedRun[]>;
  }

  async usersSpendingIn(periods: string[]): Promise<string[]> {
    if (!periods.length) return [];
    const rows = (await this.dataSource.query('SELECT DISTINCT user_id FROM user_spend WHERE period IN (?) AND spent + reserved > 0', [
      periods,
    ])) as { user_id: string }[];
    return rows.map((row) => row.user_id);
  }
}

import type { SpendLimits } from '@app/domain';
import type { DataSource } from 'typeorm';
import { runStatement, runTransaction } from '../runs/run-sql';
import type { SpendPause } from '../runs/run.records';
import type { EntityManager } from 'typeorm';
import {
  SpendRepository,
  type HoldTerms,
  type PeriodSpend,
  type RunReservation,
  type SpendHoldRef,
  type SpendPausedRun,
} from './spend.repository';

const dollars = (value: unknown): number => Math.round(Number(value) * 1e9) / 1e9;
const orNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const periodsOf = (periods: string): string[] => (periods ? periods.split(',') : ['']);
/** A hold's expiry on the database's clock, `?` microseconds from now (workers' clocks never disagree). */
const EXPIRY = 'NOW(3) + INTERVAL ? MICROSECOND';

/** The owner's holds that expired, and those of earlier attempts of `callKey` (the call being made again). */
function staleHolds(
  manager: EntityManager,
  owner: 'user_id' | 'run_uuid',
  id: string,
  callKey: string | null,
): Promise<{ id: string; periods: string; amount: string }[]> {
  return manager.query(`SELECT id, periods, amount FROM spend_holds WHERE ${owner} = ? AND (expires_at < NOW(3) OR call_key = ?)`, [
    id,
    callKey ?? '',
  ]) as Promise<{ id: string; periods: string; amount: string }[]>;
}

/** Deletes a hold; whether it was still there (an expiry or a later attempt may have given it back). */
async function deleteHold(manager: EntityManager, id: number | string): Promise<boolean> {
  const result = (await manager.query('DELETE FROM spend_holds WHERE id = ?', [id])) as { affectedRows?: number };
  return (result.affectedRows ?? 0) > 0;
}

/** A stale hold's reservation given back by `release`, once: only when this transaction deleted it. */
async function giveBack(manager: EntityManager, id: string, release: () => Promise<unknown>): Promise<void> {
  if (await deleteHold(manager, id)) await release();
}

async function insertHold(
  manager: EntityManager,
  hold: { user_id: string | null; run_uuid: string | null; periods: string; amount: number },
  terms: HoldTerms,
): Promise<number> {
  const result = (await manager.query(
    `INSERT INTO spend_holds (user_id, run_uuid, call_key, periods, amount, expires_at) VALUES (?, ?, ?, ?, ?, ${EXPIRY})`,
    [hold.user_id, hold.run_uuid, terms.callKey, hold.periods, hold.amount, terms.ttlMs * 1000],
  )) as { insertId: number };
  return Number(result.insertId);
}

/** One statement: each row gets the cost when it is a period the call spent in, and gives back `reserved` where it held it. */
function addSpent(manager: EntityManager, userId: string, spentIn: string[], cost: number, reservedIn: string[], reserved: number) {
  const rows = [...new Set([...spentIn, ...reservedIn])];
  if (!rows.length) return Promise.resolve();
  return manager.query(
    `INSERT INTO user_spend (user_id, period, spent, reserved) VALUES ${rows.map(() => '(?, ?, ?, 0)').join(', ')}
     ON DUPLICATE KEY UPDATE spent = spent + VALUES(spent), reserved = GREATEST(reserved - IF(period IN (?), ?, 0), 0)`,
    [...rows.flatMap((period) => [userId, period, spentIn.includes(period) ? cost : 0]), reservedIn.length ? reservedIn : [''], reserved],
  );
}

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

  async reserve(userId: string, periods: { period: string; limit: number }[], amount: number, terms: HoldTerms) {
    const keys = periods.map(({ period }) => period);
    // The rows first, outside the transaction: the lock below then always finds them.
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        `INSERT IGNORE INTO user_spend (user_id, period) VALUES ${keys.map(() => '(?, ?)').join(', ')}`,
        keys.flatMap((key) => [userId, key]),
      ),
    );
    return runTransaction(this.dataSource, async (manager) => {
      // The user's rows locked first (every change to their holds does so), then the holds of dead calls given back.
      await manager.query('SELECT period FROM user_spend WHERE user_id = ? AND period IN (?) FOR UPDATE', [userId, keys]);
      for (const stale of await staleHolds(manager, 'user_id', userId, terms.callKey))
        await giveBack(manager, stale.id, () =>
          manager.query('UPDATE user_spend SET reserved = GREATEST(reserved - ?, 0) WHERE user_id = ? AND period IN (?)', [
            stale.amount,
            userId,
            periodsOf(stale.periods),
          ]),
        );
      const rows = (await manager.query('SELECT period, spent + reserved AS held FROM user_spend WHERE user_id = ? AND period IN (?)', [
        userId,
        keys,
      ])) as { period: string; held: string }[];
      const held = new Map(rows.map((row) => [row.period, dollars(row.held)]));
      const full = periods.find(({ period, limit }) => (held.get(period) ?? 0) + amount > limit);
      if (full) return { reserved: false as const, period: full.period, held: held.get(full.period) ?? 0 };
      await manager.query('UPDATE user_spend SET reserved = reserved + ? WHERE user_id = ? AND period IN (?)', [amount, userId, keys]);
      const holdId = await insertHold(manager, { user_id: userId, run_uuid: null, periods: keys.join(','), amount }, terms);
      return { reserved: true as const, holdId };
    });
  }

  async settle(userId: string, spentIn: string[], cost: number, hold: SpendHoldRef | null): Promise<void> {
    if (!hold) {
      if (!spentIn.length || cost === 0) return;
      await runStatement(this.dataSource, (manager) => addSpent(manager, userId, spentIn, cost, [], 0));
      return;
    }
    await runTransaction(this.dataSource, async (manager) => {
      // Locked in the order reserve takes them (the user's rows, then the hold), so the two never deadlock.
      await manager.query('SELECT period FROM user_spend WHERE user_id = ? AND period IN (?) FOR UPDATE', [userId, hold.reservedIn]);
      const held = await deleteHold(manager, hold.id);
      await addSpent(manager, userId, spentIn, cost, held ? hold.reservedIn : [], held ? hold.amount : 0);
    });
  }

  reserveForRun(runUuid: string, amount: number, terms: HoldTerms): Promise<RunReservation> {
    return runTransaction(this.dataSource, async (manager) => {
      const [row] = (await manager.query(
        "SELECT JSON_EXTRACT(budget, '$.max_cost') AS max_cost FROM workflow_runs WHERE uuid = ? FOR UPDATE",
        [runUuid],
      )) as { max_cost: string | number | null }[];
      const maxCost = orNull(row?.max_cost ?? null);
      if (maxCost === null) return { limited: false as const };
      for (const stale of await staleHolds(manager, 'run_uuid', runUuid, terms.callKey))
        await giveBack(manager, stale.id, () =>
          manager.query('UPDATE workflow_runs SET cost_reserved = GREATEST(cost_reserved - ?, 0) WHERE uuid = ?', [stale.amount, runUuid]),
        );
      const [ledger] = (await manager.query('SELECT cost_spent + cost_reserved AS held FROM workflow_runs WHERE uuid = ?', [runUuid])) as {
        held: string;
      }[];
      const held = dollars(ledger.held);
      if (held >= maxCost) return { limited: true as const, reserved: false as const, held, max_cost: maxCost };
      await manager.query('UPDATE workflow_runs SET cost_reserved = cost_reserved + ? WHERE uuid = ?', [amount, runUuid]);
      const holdId = await insertHold(manager, { user_id: null, run_uuid: runUuid, periods: '', amount }, terms);
      return { limited: true as const, reserved: true as const, holdId };
    });
  }

  async settleForRun(runUuid: string, cost: number, hold: SpendHoldRef | null): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      await manager.query('SELECT uuid FROM workflow_runs WHERE uuid = ? FOR UPDATE', [runUuid]);
      const held = hold ? await deleteHold(manager, hold.id) : false;
      await manager.query(
        'UPDATE workflow_runs SET cost_spent = cost_spent + ?, cost_reserved = GREATEST(cost_reserved - ?, 0) WHERE uuid = ?',
        [cost, held ? hold!.amount : 0, runUuid],
      );
    });
  }

  async extendHolds(holdIds: number[], ttlMs: number): Promise<void> {
    if (!holdIds.length) return;
    await runStatement(this.dataSource, (manager) =>
      manager.query(`UPDATE spend_holds SET expires_at = ${EXPIRY} WHERE id IN (?)`, [ttlMs * 1000, holdIds]),
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

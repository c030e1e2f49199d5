import type { DataSource } from 'typeorm';
import { UsageRepository, type UsageFigures, type UsageReport } from './usage.repository';

/** The sums every group shows. */
const FIGURES = `COUNT(*) AS calls, COALESCE(SUM(m.prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(m.completion_tokens), 0) AS completion_tokens,
  COALESCE(SUM(m.cached_tokens), 0) AS cached_tokens, COALESCE(SUM(m.total_tokens), 0) AS total_tokens,
  COALESCE(SUM(m.cost), 0) AS cost, COUNT(*) - COUNT(m.cost) AS unpriced_calls`;

/**
 * The user's completed calls that started in the range, read by (user_id, started_at): a report costs the calls
 * of its range, whatever the user's history before or after it; by workflow joins each call's run by its key.
 */
export function usageStatements(): { byDay: string; byWorkflow: string; byModel: string } {
  const inRange = `m.user_id = ? AND m.started_at >= ? AND m.started_at < ? AND m.status = 'completed'`;
  return {
    byDay: `SELECT DATE_FORMAT(m.started_at, '%Y-%m-%d') AS day, ${FIGURES} FROM model_calls m WHERE ${inRange} GROUP BY day ORDER BY day`,
    byWorkflow: `SELECT r.workflow_uuid, MAX(r.workflow_name) AS workflow_name, ${FIGURES}
      FROM model_calls m JOIN workflow_runs r ON r.uuid = m.run_uuid WHERE ${inRange}
      GROUP BY r.workflow_uuid ORDER BY cost DESC, r.workflow_uuid`,
    byModel: `SELECT m.provider, m.model, ${FIGURES} FROM model_calls m WHERE ${inRange} GROUP BY m.provider, m.model ORDER BY cost DESC, m.provider, m.model`,
  };
}

const STATEMENTS = usageStatements();

type Row = Record<string, string | number | null>;

const NONE: UsageFigures = {
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cached_tokens: 0,
  total_tokens: 0,
  cost: 0,
  unpriced_calls: 0,
};

function figures(row: Row): UsageFigures {
  return {
    calls: Number(row.calls),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    cached_tokens: Number(row.cached_tokens),
    total_tokens: Number(row.total_tokens),
    cost: Math.round(Number(row.cost) * 1e9) / 1e9,
    unpriced_calls: Number(row.unpriced_calls),
  };
}

export class TypeormUsageRepository extends UsageRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async report(userId: string, from: Date, to: Date): Promise<UsageReport> {
    const params = [userId, from, to];
    const query = (sql: string) => this.dataSource.query(sql, params) as Promise<Row[]>;
    const [days, workflows, models] = await Promise.all([query(STATEMENTS.byDay), query(STATEMENTS.byWorkflow), query(STATEMENTS.byModel)]);
    const by_day = days.map((row) => ({ day: String(row.day), ...figures(row) }));
    return {
      // The days' sums added up: one read of the range fewer.
      total: by_day.reduce(added, NONE),
      by_day,
      by_workflow: workflows.map((row) => ({
        workflow_uuid: String(row.workflow_uuid),
        workflow_name: String(row.workflow_name),
        ...figures(row),
      })),
      by_model: models.map((row) => ({
        provider: row.provider === null ? null : String(row.provider),
        model: String(row.model),
        ...figures(row),
      })),
    };
  }
}

function added(sum: UsageFigures, day: UsageFigures): UsageFigures {
  return {
    calls: sum.calls + day.calls,
    prompt_tokens: sum.prompt_tokens + day.prompt_tokens,
    completion_tokens: sum.completion_tokens + day.completion_tokens,
    cached_tokens: sum.cached_tokens + day.cached_tokens,
    total_tokens: sum.total_tokens + day.total_tokens,
    cost: Math.round((sum.cost + day.cost) * 1e9) / 1e9,
    unpriced_calls: sum.unpriced_calls + day.unpriced_calls,
  };
}

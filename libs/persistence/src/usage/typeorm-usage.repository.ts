import type { DataSource } from 'typeorm';
import { UsageRepository, type UsageFigures, type UsageReport } from './usage.repository';

/** The sums every group shows. */
const FIGURES = `COUNT(*) AS calls, COALESCE(SUM(m.prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(m.completion_tokens), 0) AS completion_tokens,
  COALESCE(SUM(m.cached_tokens), 0) AS cached_tokens, COALESCE(SUM(m.total_tokens), 0) AS total_tokens,
  COALESCE(SUM(m.cost), 0) AS cost, COUNT(*) - COUNT(m.cost) AS unpriced_calls`;

/** The user's completed calls that started in the range: through the user's runs (by user), then each run's calls. */
const CALLS = `FROM workflow_runs r JOIN model_calls m ON m.run_uuid = r.uuid
  WHERE r.user_id = ? AND m.status = 'completed' AND m.started_at >= ? AND m.started_at < ?`;

type Row = Record<string, string | number | null>;

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
    const [[total], days, workflows, models] = await Promise.all([
      query(`SELECT ${FIGURES} ${CALLS}`),
      query(`SELECT DATE_FORMAT(m.started_at, '%Y-%m-%d') AS day, ${FIGURES} ${CALLS} GROUP BY day ORDER BY day`),
      query(
        `SELECT r.workflow_uuid, MAX(r.workflow_name) AS workflow_name, ${FIGURES} ${CALLS} GROUP BY r.workflow_uuid ORDER BY cost DESC, r.workflow_uuid`,
      ),
      query(`SELECT m.provider, m.model, ${FIGURES} ${CALLS} GROUP BY m.provider, m.model ORDER BY cost DESC, m.provider, m.model`),
    ]);
    return {
      total: figures(total),
      by_day: days.map((row) => ({ day: String(row.day), ...figures(row) })),
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

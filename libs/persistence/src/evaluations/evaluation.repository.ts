// Datasets and evaluations (#30), in plain SQL: two small tables off the hot path, JSON in LONGTEXT.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

export interface DatasetRecord {
  uuid: string;
  user_id: string;
  workflow_uuid: string;
  name: string;
  cases: unknown[];
  updated_at: Date;
}

export type EvaluationStatus = 'running' | 'completed' | 'failed' | 'cancelled';

export interface EvaluationRecord {
  uuid: string;
  user_id: string;
  workflow_uuid: string;
  dataset: string;
  /** The dataset's cases as they were when it started. */
  cases: unknown[];
  targets: ('current' | number)[];
  status: EvaluationStatus;
  report: unknown;
  error_message: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export type NewEvaluation = Pick<EvaluationRecord, 'uuid' | 'user_id' | 'workflow_uuid' | 'dataset' | 'cases' | 'targets'>;

/** Every read is scoped to one user: another user's datasets and evaluations do not exist to them. */
export abstract class EvaluationRepository {
  /** Creates the dataset, or replaces the cases of the one of that name. */
  abstract saveDataset(userId: string, workflowUuid: string, name: string, cases: unknown[]): Promise<DatasetRecord>;
  abstract findDataset(userId: string, workflowUuid: string, name: string): Promise<DatasetRecord | null>;
  abstract listDatasets(userId: string, workflowUuid: string): Promise<Omit<DatasetRecord, 'cases'>[]>;
  abstract createEvaluation(evaluation: NewEvaluation): Promise<void>;
  abstract findEvaluation(userId: string, uuid: string): Promise<EvaluationRecord | null>;
  /** Ends it once: false when it had ended already. */
  abstract endEvaluation(
    uuid: string,
    status: Exclude<EvaluationStatus, 'running'>,
    report: unknown,
    errorMessage: string | null,
  ): Promise<boolean>;
}

type Row = Record<string, unknown>;
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

export class SqlEvaluationRepository extends EvaluationRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async saveDataset(userId: string, workflowUuid: string, name: string, cases: unknown[]): Promise<DatasetRecord> {
    await this.dataSource.query(
      `INSERT INTO eval_datasets (uuid, user_id, workflow_uuid, name, cases) VALUES (?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE cases = VALUES(cases), updated_at = CURRENT_TIMESTAMP(3)`,
      [randomUUID(), userId, workflowUuid, name, JSON.stringify(cases)],
    );
    return (await this.findDataset(userId, workflowUuid, name))!;
  }

  async findDataset(userId: string, workflowUuid: string, name: string): Promise<DatasetRecord | null> {
    const [row] = (await this.dataSource.query('SELECT * FROM eval_datasets WHERE user_id = ? AND workflow_uuid = ? AND name = ?', [
      userId,
      workflowUuid,
      name,
    ])) as Row[];
    return row ? datasetOf(row) : null;
  }

  async listDatasets(userId: string, workflowUuid: string): Promise<Omit<DatasetRecord, 'cases'>[]> {
    const rows = (await this.dataSource.query(
      'SELECT uuid, user_id, workflow_uuid, name, updated_at FROM eval_datasets WHERE user_id = ? AND workflow_uuid = ? ORDER BY name LIMIT 500',
      [userId, workflowUuid],
    )) as Row[];
    return rows.map((row) => ({
      uuid: row.uuid as string,
      user_id: row.user_id as string,
      workflow_uuid: row.workflow_uuid as string,
      name: row.name as string,
      updated_at: row.updated_at as Date,
    }));
  }

  async createEvaluation(evaluation: NewEvaluation): Promise<void> {
    await this.dataSource.query(
      "INSERT INTO evaluations (uuid, user_id, workflow_uuid, dataset, cases, targets, status) VALUES (?, ?, ?, ?, ?, ?, 'running')",
      [
        evaluation.uuid,
        evaluation.user_id,
        evaluation.workflow_uuid,
        evaluation.dataset,
        JSON.stringify(evaluation.cases),
        JSON.stringify(evaluation.targets),
      ],
    );
  }

  async findEvaluation(userId: string, uuid: string): Promise<EvaluationRecord | null> {
    const [row] = (await this.dataSource.query('SELECT * FROM evaluations WHERE user_id = ? AND uuid = ?', [userId, uuid])) as Row[];
    return row
      ? {
          uuid: row.uuid as string,
          user_id: row.user_id as string,
          workflow_uuid: row.workflow_uuid as string,
          dataset: row.dataset as string,
          cases: json(row.cases) as unknown[],
          targets: json(row.targets) as EvaluationRecord['targets'],
          status: row.status as EvaluationStatus,
          report: row.report === null ? null : json(row.report),
          error_message: row.error_message as string | null,
          created_at: row.created_at as Date,
          finished_at: row.finished_at as Date | null,
        }
      : null;
  }

  async endEvaluation(
    uuid: string,
    status: Exclude<EvaluationStatus, 'running'>,
    report: unknown,
    errorMessage: string | null,
  ): Promise<boolean> {
    const result = (await this.dataSource.query(
      "UPDATE evaluations SET status = ?, report = ?, error_message = ?, finished_at = CURRENT_TIMESTAMP(3) WHERE uuid = ? AND status = 'running'",
      [status, report === null ? null : JSON.stringify(report), errorMessage, uuid],
    )) as { affectedRows: number };
    return result.affectedRows > 0;
  }
}

function datasetOf(row: Row): DatasetRecord {
  return {
    uuid: row.uuid as string,
    user_id: row.user_id as string,
    workflow_uuid: row.workflow_uuid as string,
    name: row.name as string,
    cases: json(row.cases) as unknown[],
    updated_at: row.updated_at as Date,
  };
}

// What the database holds, read with plain SQL: assertions do not go through the code under test.
import type { DataSource } from 'typeorm';

export interface StepRow {
  uuid: string;
  status: string;
  attempts: number;
  output_id: string | null;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface CallRow {
  turn: number | null;
  tool_call_id: string | null;
  attempt: number;
  status: string;
  error_message: string | null;
  prompt_tokens: number | null;
  total_tokens: number | null;
}

export interface RunRow {
  status: string;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  finished_at: Date | null;
  /** The guard rail the run ended on, as the JSON text the row holds. */
  guard_rail: string | null;
}

export interface WorkflowCounters {
  total_runs: number;
  successful_runs: number;
  failed_runs: number;
}

export class Rows {
  constructor(private readonly db: DataSource) {}

  async count(table: 'workflow_runs' | 'step_outputs' | 'workflow_step_instances', userId: string): Promise<number> {
    const [row] = (await this.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, [userId])) as { n: string | number }[];
    return Number(row.n);
  }

  async run(runUuid: string): Promise<RunRow> {
    const [row] = (await this.db.query(
      'SELECT status, error_message, prompt_tokens, completion_tokens, total_tokens, finished_at, guard_rail FROM workflow_runs WHERE uuid = ?',
      [runUuid],
    )) as RunRow[];
    return row;
  }

  async step(instanceUuid: string): Promise<StepRow> {
    const [row] = (await this.db.query(
      'SELECT uuid, status, attempts, output_id, error_message, prompt_tokens, completion_tokens, total_tokens, started_at, finished_at FROM workflow_step_instances WHERE uuid = ?',
      [instanceUuid],
    )) as StepRow[];
    return row;
  }

  /** The step's model calls in (turn, attempt) order. */
  modelCalls(instanceUuid: string): Promise<CallRow[]> {
    return this.db.query(
      'SELECT turn, NULL AS tool_call_id, attempt, status, error_message, prompt_tokens, total_tokens FROM model_calls WHERE step_instance_uuid = ? ORDER BY turn, attempt',
      [instanceUuid],
    ) as Promise<CallRow[]>;
  }

  /** How many messages each of the step's model calls sent, in (turn, attempt) order: its audit names them by count. */
  async sentMessageCounts(instanceUuid: string): Promise<number[]> {
    const rows = (await this.db.query('SELECT request FROM model_calls WHERE step_instance_uuid = ? ORDER BY turn, attempt', [
      instanceUuid,
    ])) as { request: string }[];
    return rows.map((row) => (JSON.parse(row.request) as { message_count: number }).message_count);
  }

  /** The request hash each of the step's model calls recorded, in (turn, attempt) order. */
  async requestHashes(instanceUuid: string): Promise<(string | null)[]> {
    const rows = (await this.db.query('SELECT request_hash FROM model_calls WHERE step_instance_uuid = ? ORDER BY turn, attempt', [
      instanceUuid,
    ])) as { request_hash: string | null }[];
    return rows.map((row) => row.request_hash);
  }

  toolCalls(instanceUuid: string): Promise<CallRow[]> {
    return this.db.query(
      'SELECT NULL AS turn, tool_call_id, attempt, status, error_message, NULL AS prompt_tokens, NULL AS total_tokens FROM tool_calls WHERE step_instance_uuid = ? ORDER BY started_at, attempt',
      [instanceUuid],
    ) as Promise<CallRow[]>;
  }

  /** The conversation kept on a step's row, with the messages appended after it (step_messages). */
  async messages(instanceUuid: string): Promise<{ role: string; content: string | null }[]> {
    const [row] = (await this.db.query('SELECT model_messages FROM workflow_step_instances WHERE uuid = ?', [instanceUuid])) as {
      model_messages: string | null;
    }[];
    const appended = (await this.db.query('SELECT message FROM step_messages WHERE instance_uuid = ? ORDER BY position', [
      instanceUuid,
    ])) as { message: unknown }[];
    // The driver parses a column MariaDB reports as JSON itself.
    const parsed = ({ message }: { message: unknown }) => (typeof message === 'string' ? JSON.parse(message) : message);
    return [...(row?.model_messages ? JSON.parse(row.model_messages) : []), ...appended.map(parsed)];
  }

  /** The raw data of a stored output (JSON text in its column). */
  async outputData(outputId: string): Promise<unknown> {
    const [row] = (await this.db.query('SELECT raw_data FROM step_outputs WHERE uuid = ?', [outputId])) as { raw_data: string }[];
    return row ? JSON.parse(row.raw_data) : undefined;
  }

  async counters(workflowUuid: string): Promise<WorkflowCounters> {
    const [row] = (await this.db.query('SELECT total_runs, successful_runs, failed_runs FROM workflows WHERE uuid = ?', [
      workflowUuid,
    ])) as WorkflowCounters[];
    return row;
  }

  async runsInFlight(userId: string): Promise<number> {
    const [row] = (await this.db.query('SELECT runs_in_flight FROM user_quotas WHERE user_id = ?', [userId])) as {
      runs_in_flight: number;
    }[];
    return row?.runs_in_flight ?? 0;
  }
}

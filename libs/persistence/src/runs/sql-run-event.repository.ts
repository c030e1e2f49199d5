import type { DataSource } from 'typeorm';
import { RunEventRepository, type ModelCallKey, type RunDelta, type RunDeltaRecord, type RunEventRecord } from './run-event.repository';
import { jsonOf, runStatement } from './run-sql';

type EventRow = { id: number | string; run_uuid: string; seq: number; type: string; payload: unknown; created_at: Date };
type DeltaRow = Omit<RunDeltaRecord, 'id'> & { id: number | string };

const EVENT_COLUMNS = 'id, run_uuid, seq, type, payload, created_at';
const DELTA_COLUMNS = 'id, step_instance_uuid, turn, attempt, kind, tool_index, text';

const eventOf = (row: EventRow): RunEventRecord => ({
  id: Number(row.id),
  run_uuid: row.run_uuid,
  seq: Number(row.seq),
  type: row.type,
  payload: jsonOf(row.payload) as Record<string, unknown>,
  created_at: row.created_at,
});

const deltaOf = (row: DeltaRow): RunDeltaRecord => ({
  id: Number(row.id),
  step_instance_uuid: row.step_instance_uuid,
  turn: Number(row.turn),
  attempt: Number(row.attempt),
  kind: row.kind,
  tool_index: row.tool_index === null ? null : Number(row.tool_index),
  text: row.text,
});

export class SqlRunEventRepository extends RunEventRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async eventsAfter(runUuid: string, seq: number, limit: number): Promise<RunEventRecord[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM run_events WHERE run_uuid = ? AND seq > ? ORDER BY seq LIMIT ?`,
      [runUuid, seq, limit],
    );
    return rows.map(eventOf);
  }

  async workflowEventsAfter(workflowUuid: string, id: number, limit: number): Promise<RunEventRecord[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM run_events WHERE workflow_uuid = ? AND id > ? ORDER BY id LIMIT ?`,
      [workflowUuid, id, limit],
    );
    return rows.map(eventOf);
  }

  async lastSeq(runUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query('SELECT MAX(seq) AS seq FROM run_events WHERE run_uuid = ?', [runUuid])) as {
      seq: number | null;
    }[];
    return Number(row?.seq ?? 0);
  }

  async lastId(): Promise<number> {
    const [row] = (await this.dataSource.query('SELECT MAX(id) AS id FROM run_events')) as { id: number | string | null }[];
    return Number(row?.id ?? 0);
  }

  async appendDeltas(runUuid: string, deltas: RunDelta[]): Promise<void> {
    if (!deltas.length) return;
    const values = deltas.flatMap((delta) => [
      runUuid,
      delta.step_instance_uuid,
      delta.turn,
      delta.attempt,
      delta.kind,
      delta.tool_index,
      delta.text,
    ]);
    await runStatement(this.dataSource, (manager) =>
      manager.query(
        `INSERT INTO run_deltas (run_uuid, step_instance_uuid, turn, attempt, kind, tool_index, text) VALUES ${deltas.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        values,
      ),
    );
  }

  async deltasAfter(runUuid: string, id: number, limit: number): Promise<RunDeltaRecord[]> {
    const rows: DeltaRow[] = await this.dataSource.query(
      `SELECT ${DELTA_COLUMNS} FROM run_deltas WHERE run_uuid = ? AND id > ? ORDER BY id LIMIT ?`,
      [runUuid, id, limit],
    );
    return rows.map(deltaOf);
  }

  async callsInFlight(runUuid: string): Promise<ModelCallKey[]> {
    const rows: ModelCallKey[] = await this.dataSource.query(
      "SELECT step_instance_uuid, turn, attempt FROM model_calls WHERE run_uuid = ? AND status = 'running' ORDER BY started_at",
      [runUuid],
    );
    return rows.map((row) => ({ step_instance_uuid: row.step_instance_uuid, turn: Number(row.turn), attempt: Number(row.attempt) }));
  }

  async deltasOf(runUuid: string, call: ModelCallKey, upToId: number, limit: number): Promise<RunDeltaRecord[]> {
    const rows: DeltaRow[] = await this.dataSource.query(
      `SELECT ${DELTA_COLUMNS} FROM run_deltas WHERE run_uuid = ? AND id <= ? AND step_instance_uuid = ? AND turn = ? AND attempt = ? ORDER BY id LIMIT ?`,
      [runUuid, upToId, call.step_instance_uuid, call.turn, call.attempt, limit],
    );
    return rows.map(deltaOf);
  }

  async lastDeltaId(runUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query('SELECT MAX(id) AS id FROM run_deltas WHERE run_uuid = ?', [runUuid])) as {
      id: number | string | null;
    }[];
    return Number(row?.id ?? 0);
  }

  async smallOutput(outputId: string, maxBytes: number): Promise<{ data: unknown } | null> {
    const [row] = (await this.dataSource.query('SELECT raw_data FROM step_outputs WHERE uuid = ? AND size_bytes <= ?', [
      outputId,
      maxBytes,
    ])) as {
      raw_data: unknown;
    }[];
    return row ? { data: jsonOf(row.raw_data) } : null;
  }
}

import type { DataSource, EntityManager } from 'typeorm';
import { retryingRolledBack } from '../rolled-back';
import { pageOf, type Page, type PageRequest } from '../pages';
import { AssistantSessionEntity } from './assistant.entities';
import {
  AssistantRepository,
  type AssistantEventRecord,
  type AssistantSessionChange,
  type AssistantSessionRecord,
  type NewAssistantEvent,
  type NewAssistantSession,
} from './assistant.repository';

/** MariaDB reports a LONGTEXT with a JSON_VALID check as JSON, and the driver parses it: either form comes back. */
const fromJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
const asRecord = (entity: AssistantSessionEntity) => ({ ...entity }) as AssistantSessionRecord;

export class TypeormAssistantRepository extends AssistantRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async create(session: NewAssistantSession): Promise<AssistantSessionRecord> {
    const repository = this.dataSource.getRepository(AssistantSessionEntity);
    await repository.insert({
      ...session,
      stage: 'clarification',
      previous_stage: null,
      intent_summary: '',
      conversations: [],
      pending_questions: [],
      generation: [],
      candidate: null as never,
      is_open: true,
      base_fingerprint: null,
      failed_attempt: null as never,
      prompt_tokens: 0,
      completion_tokens: 0,
    });
    return asRecord(await repository.findOneByOrFail({ uuid: session.uuid }));
  }

  async find(userId: string, uuid: string): Promise<AssistantSessionRecord | null> {
    const entity = await this.dataSource.getRepository(AssistantSessionEntity).findOneBy({ uuid, user_id: userId });
    return entity ? asRecord(entity) : null;
  }

  async get(uuid: string): Promise<AssistantSessionRecord> {
    return asRecord(await this.dataSource.getRepository(AssistantSessionEntity).findOneByOrFail({ uuid }));
  }

  async list(userId: string, page: PageRequest): Promise<Page<AssistantSessionRecord>> {
    const query = this.dataSource
      .getRepository(AssistantSessionEntity)
      .createQueryBuilder('row')
      .where('row.user_id = :userId', { userId });
    const result = await pageOf(query, 'created_at', page);
    return { ...result, items: result.items.map(asRecord) };
  }

  async delete(userId: string, uuid: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(AssistantSessionEntity).delete({ uuid, user_id: userId });
    return (result.affected ?? 0) > 0;
  }

  async close(uuid: string): Promise<void> {
    await this.dataSource.getRepository(AssistantSessionEntity).update({ uuid }, { is_open: false });
  }

  async findCall(sessionUuid: string, callKey: string): Promise<unknown> {
    const rows: { result: unknown }[] = await this.dataSource.query(
      'SELECT result FROM assistant_calls WHERE session_uuid = ? AND call_key = ?',
      [sessionUuid, callKey],
    );
    return rows.length ? fromJson(rows[0].result) : null;
  }

  commit(
    sessionUuid: string,
    callKey: string,
    result: unknown,
    change: AssistantSessionChange,
    events: NewAssistantEvent[],
  ): Promise<boolean> {
    return retryingRolledBack(() =>
      this.dataSource.transaction(async (manager) => {
        const stored = await manager.query('INSERT IGNORE INTO assistant_calls (session_uuid, call_key, result) VALUES (?, ?, ?)', [
          sessionUuid,
          callKey,
          JSON.stringify(result ?? null),
        ]);
        if (stored.affectedRows === 0) return false;
        await this.applyChange(manager, sessionUuid, change);
        for (const event of events) await this.appendEvent(manager, sessionUuid, event);
        return true;
      }),
    );
  }

  private async applyChange(manager: EntityManager, uuid: string, { tokens, stage, ...fields }: AssistantSessionChange): Promise<void> {
    const repository = manager.getRepository(AssistantSessionEntity);
    const current = await repository.createQueryBuilder('row').setLock('pessimistic_write').where('row.uuid = :uuid', { uuid }).getOne();
    if (!current) return;
    const moved = stage && stage !== current.stage ? { stage, previous_stage: current.stage } : {};
    const spent = tokens
      ? { prompt_tokens: current.prompt_tokens + tokens.prompt, completion_tokens: current.completion_tokens + tokens.completion }
      : {};
    const update = { ...fields, ...moved, ...spent };
    if (Object.keys(update).length) await repository.update({ uuid }, update as never);
  }

  /** The next seq of the session; the session row's lock (taken above) keeps two writers apart. */
  private async appendEvent(manager: EntityManager, sessionUuid: string, { key, payload }: NewAssistantEvent): Promise<void> {
    await manager.query(
      `INSERT INTO assistant_events (session_uuid, seq, event_key, payload)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ? FROM assistant_events WHERE session_uuid = ?`,
      [sessionUuid, key, JSON.stringify(payload), sessionUuid],
    );
  }

  async lastSeq(sessionUuid: string): Promise<number> {
    const rows: { seq: number | null }[] = await this.dataSource.query(
      'SELECT MAX(seq) AS seq FROM assistant_events WHERE session_uuid = ?',
      [sessionUuid],
    );
    return Number(rows[0]?.seq ?? 0);
  }

  async eventsAfter(sessionUuid: string, seq: number, limit: number): Promise<AssistantEventRecord[]> {
    const rows: { seq: number; payload: unknown }[] = await this.dataSource.query(
      'SELECT seq, payload FROM assistant_events WHERE session_uuid = ? AND seq > ? ORDER BY seq LIMIT ?',
      [sessionUuid, seq, limit],
    );
    return rows.map((row) => ({ seq: Number(row.seq), payload: fromJson(row.payload) as Record<string, unknown> }));
  }
}

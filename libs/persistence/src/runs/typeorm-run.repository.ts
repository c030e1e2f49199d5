import { randomUUID } from 'node:crypto';
import type { FinalStatus } from '@app/contracts';
import { In, IsNull, Not, type DataSource, type EntityManager } from 'typeorm';
import type { Page } from '../definitions/workflow.repository';
import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity } from './run.entities';
import type { ModelCallRecord, NewRun, NotificationRecord, OutputRecord, RunFilter, RunRecord, RunWithSteps, StepInstanceRecord, ToolCallRecord } from './run.records';
import { retryingLostConnection } from '../lost-connection';
import { RunRepository, type NewOutput } from './run.repository';

const NOW = () => 'CURRENT_TIMESTAMP(3)';
const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal retried the call after its heartbeat timeout';
const INTERRUPTED_ATTEMPT = 'Interrupted: the run ended before this attempt finished';
const asRun = (entity: RunEntity) => ({ ...entity }) as RunRecord;
const asInstance = (entity: StepInstanceEntity) => ({ ...entity }) as StepInstanceRecord;

export class TypeormRunRepository extends RunRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  /** Every write runs whole, and again on a fresh connection if its connection died under it. */
  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retryingLostConnection(() => this.dataSource.transaction(work));
  }

  async create(run: NewRun): Promise<boolean> {
    try {
      await this.insertRun(run);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'ER_DUP_ENTRY' && (await this.dataSource.manager.existsBy(RunEntity, { uuid: run.uuid }))) return false;
      throw error;
    }
  }

  private async insertRun(run: NewRun): Promise<void> {
    await this.transaction(async (manager) => {
      await manager.insert(RunEntity, {
        uuid: run.uuid,
        user_id: run.user_id,
        workflow_uuid: run.workflow_uuid,
        workflow_name: run.workflow_name,
        status: 'running',
        definition: run.definition as never,
        trigger_output_id: run.trigger_output.uuid,
        temporal_workflow_id: run.temporal_workflow_id,
        schedule_id: run.schedule_id,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
      });
      await manager.insert(StepOutputEntity, { ...run.trigger_output, run_uuid: run.uuid, user_id: run.user_id, step_instance_uuid: null } as never);
      if (run.steps.length) {
        await manager.insert(
          StepInstanceEntity,
          run.steps.map((step, position) => ({ ...step, run_uuid: run.uuid, user_id: run.user_id, position, status: 'pending', attempts: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })),
        );
      }
      await manager.query('UPDATE workflows SET total_runs = total_runs + 1 WHERE uuid = ?', [run.workflow_uuid]);
    });
  }

  async find(userId: string, uuid: string): Promise<RunWithSteps | null> {
    const manager = this.dataSource.manager;
    const run = await manager.findOneBy(RunEntity, { uuid, user_id: userId });
    if (!run) return null;
    const [instances, outputs, modelCalls, toolCalls] = await Promise.all([
      manager.find(StepInstanceEntity, { where: { run_uuid: uuid }, order: { position: 'ASC' } }),
      manager.findBy(StepOutputEntity, { run_uuid: uuid }),
      manager.find(ModelCallEntity, { where: { run_uuid: uuid }, order: { started_at: 'ASC', turn: 'ASC', attempt: 'ASC' } }),
      manager.find(ToolCallEntity, { where: { run_uuid: uuid }, order: { started_at: 'ASC', attempt: 'ASC' } }),
    ]);
    const outputById = new Map(outputs.map((output) => [output.uuid, output as OutputRecord]));
    return {
      ...asRun(run),
      trigger_output: (run.trigger_output_id && outputById.get(run.trigger_output_id)) || null,
      steps: instances.map((instance) => ({
        ...asInstance(instance),
        output: (instance.output_id && outputById.get(instance.output_id)) || null,
        model_calls: modelCalls.filter((call) => call.step_instance_uuid === instance.uuid) as ModelCallRecord[],
        tool_calls: toolCalls.filter((call) => call.step_instance_uuid === instance.uuid) as ToolCallRecord[],
      })),
    };
  }

  async list(userId: string, filter: RunFilter, limit: number, offset: number): Promise<Page<RunRecord>> {
    const [rows, total] = await this.dataSource.getRepository(RunEntity).findAndCount({
      where: {
        user_id: userId,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.workflow_uuid ? { workflow_uuid: filter.workflow_uuid } : {}),
        ...(filter.schedule_id ? { schedule_id: filter.schedule_id } : {}),
      },
      select: { definition: false, uuid: true, user_id: true, workflow_uuid: true, workflow_name: true, status: true, trigger_output_id: true, temporal_workflow_id: true, schedule_id: true, error_message: true, notification: true, prompt_tokens: true, completion_tokens: true, total_tokens: true, started_at: true, finished_at: true, created_at: true },
      order: { created_at: 'DESC', uuid: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { items: rows.map(asRun), total, limit, offset };
  }

  async findOutput(userId: string, outputId: string): Promise<OutputRecord | null> {
    return (await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: outputId, user_id: userId })) as OutputRecord | null;
  }

  async outputOfStep(runUuid: string, stepUuid: string): Promise<OutputRecord | null> {
    const instance = await this.dataSource.manager.findOne(StepInstanceEntity, {
      where: { run_uuid: runUuid, step_definition_uuid: stepUuid, status: 'completed', output_id: Not(IsNull()) },
      order: { finished_at: 'DESC' },
    });
    if (!instance?.output_id) return null;
    return (await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: instance.output_id })) as OutputRecord | null;
  }

  async triggerOutput(runUuid: string): Promise<OutputRecord | null> {
    const run = await this.dataSource.manager.findOne(RunEntity, { where: { uuid: runUuid }, select: { uuid: true, trigger_output_id: true } });
    if (!run?.trigger_output_id) return null;
    return (await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: run.trigger_output_id })) as OutputRecord | null;
  }

  async instance(instanceUuid: string): Promise<StepInstanceRecord | null> {
    const row = await this.dataSource.manager.findOneBy(StepInstanceEntity, { uuid: instanceUuid });
    return row ? asInstance(row) : null;
  }

  async startStep(instanceUuid: string, inputData: unknown): Promise<void> {
    await this.transaction((manager) =>
      manager
        .createQueryBuilder()
        .update(StepInstanceEntity)
        .set({ status: 'running', input_data: inputData as never, attempts: () => 'attempts + 1', started_at: () => 'COALESCE(started_at, CURRENT_TIMESTAMP(3))' })
        .where('uuid = :uuid AND status IN (:...open)', { uuid: instanceUuid, open: ['pending', 'running'] })
        .execute(),
    );
  }

  async saveMessages(instanceUuid: string, messages: unknown[]): Promise<void> {
    await this.transaction((manager) => manager.update(StepInstanceEntity, { uuid: instanceUuid }, { messages: messages as never }));
  }

  async completeStep(instanceUuid: string, output: NewOutput | null, messages?: unknown[]): Promise<void> {
    await this.transaction(async (manager) => {
      if (output) await manager.insert(StepOutputEntity, output as never);
      const closing = { status: 'completed', output_id: output?.uuid ?? null, error_message: null, ...(messages ? { messages: messages as never } : {}) };
      await this.closeStep(manager, instanceUuid, closing, false);
    });
  }

  async failStep(instanceUuid: string, errorMessage: string): Promise<void> {
    await this.transaction((manager) => this.closeStep(manager, instanceUuid, { status: 'failed', error_message: errorMessage }, true));
  }

  /** Ends a step: its fields, its tokens summed from its model calls, its finish time and duration. */
  private async closeStep(manager: EntityManager, instanceUuid: string, fields: Record<string, unknown>, unlessCompleted: boolean): Promise<void> {
    const tokens = await this.sumTokens(manager, 'step_instance_uuid', instanceUuid);
    await manager
      .createQueryBuilder()
      .update(StepInstanceEntity)
      .set({ ...fields, ...tokens, finished_at: NOW, duration_ms: () => 'TIMESTAMPDIFF(MICROSECOND, started_at, CURRENT_TIMESTAMP(3)) DIV 1000' })
      .where(unlessCompleted ? 'uuid = :uuid AND status <> :done' : 'uuid = :uuid', { uuid: instanceUuid, done: 'completed' })
      .execute();
  }

  async finishRun(runUuid: string, status: FinalStatus, errorMessage: string | null): Promise<void> {
    await this.transaction(async (manager) => {
      await manager.update(StepInstanceEntity, { run_uuid: runUuid, status: In(['pending', 'running']) }, { status: 'skipped' });
      for (const entity of [ModelCallEntity, ToolCallEntity]) {
        await manager.update(entity, { run_uuid: runUuid, status: 'running' }, { status: 'failed', error_message: INTERRUPTED_ATTEMPT });
      }
      const tokens = await this.sumTokens(manager, 'run_uuid', runUuid);
      const ended = await manager
        .createQueryBuilder()
        .update(RunEntity)
        .set({ status, error_message: errorMessage, ...tokens, finished_at: NOW })
        .where('uuid = :uuid AND status = :running', { uuid: runUuid, running: 'running' })
        .execute();
      // Counted once, by the update that ended the run: exact however many runs end at once.
      const counter = status === 'failed' ? 'failed_runs' : status === 'cancelled' ? null : 'successful_runs';
      if (ended.affected === 1 && counter) {
        await manager.query(`UPDATE workflows w JOIN workflow_runs r ON r.workflow_uuid = w.uuid SET w.${counter} = w.${counter} + 1 WHERE r.uuid = ?`, [runUuid]);
      }
    });
  }

  async recordNotification(runUuid: string, notification: NotificationRecord): Promise<void> {
    await this.transaction((manager) => manager.update(RunEntity, { uuid: runUuid }, { notification: notification as never }));
  }

  async recordModelCall(call: Omit<ModelCallRecord, 'uuid'> & { run_uuid: string }): Promise<void> {
    await this.transaction(async (manager) => {
      if (call.status === 'running') {
        await this.closeLostAttempts(manager, ModelCallEntity, 'turn = :turn', { instance: call.step_instance_uuid, turn: call.turn, attempt: call.attempt });
      }
      await manager
        .createQueryBuilder()
        .insert()
        .into(ModelCallEntity)
        .values({ ...call, uuid: randomUUID() } as never)
        .orUpdate(['status', 'error_message', 'response', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'duration_ms', 'finished_at'], ['step_instance_uuid', 'turn', 'attempt'])
        .execute();
    });
  }

  async recordToolCall(call: Omit<ToolCallRecord, 'uuid'> & { run_uuid: string }): Promise<void> {
    await this.transaction(async (manager) => {
      if (call.status === 'running') {
        await this.closeLostAttempts(manager, ToolCallEntity, 'tool_call_id = :call', { instance: call.step_instance_uuid, call: call.tool_call_id, attempt: call.attempt });
      }
      await manager
        .createQueryBuilder()
        .insert()
        .into(ToolCallEntity)
        .values({ ...call, uuid: randomUUID() } as never)
        .orUpdate(['status', 'error_message', 'output', 'duration_ms', 'finished_at'], ['step_instance_uuid', 'tool_call_id', 'attempt'])
        .execute();
    });
  }

  async completedModelCall(instanceUuid: string, turn: number): Promise<ModelCallRecord | null> {
    return (await this.dataSource.manager.findOneBy(ModelCallEntity, { step_instance_uuid: instanceUuid, turn, status: 'completed' })) as ModelCallRecord | null;
  }

  async completedToolCall(instanceUuid: string, toolCallId: string): Promise<ToolCallRecord | null> {
    return (await this.dataSource.manager.findOneBy(ToolCallEntity, { step_instance_uuid: instanceUuid, tool_call_id: toolCallId, status: 'completed' })) as ToolCallRecord | null;
  }

  /** Earlier attempts of a call that are still `running` when a new one starts: their worker died mid-call. */
  private async closeLostAttempts(manager: EntityManager, entity: typeof ModelCallEntity | typeof ToolCallEntity, sameCall: string, params: Record<string, unknown>): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(entity)
      .set({ status: 'failed', error_message: LOST_ATTEMPT })
      .where(`step_instance_uuid = :instance AND ${sameCall} AND attempt < :attempt AND status = 'running'`, params)
      .execute();
  }

  private async sumTokens(manager: EntityManager, column: 'run_uuid' | 'step_instance_uuid', value: string) {
    const [row] = await manager.query(
      `SELECT COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c, COALESCE(SUM(total_tokens), 0) AS t
       FROM model_calls WHERE ${column} = ? AND status = 'completed'`,
      [value],
    );
    return { prompt_tokens: Number(row.p), completion_tokens: Number(row.c), total_tokens: Number(row.t) };
  }
}

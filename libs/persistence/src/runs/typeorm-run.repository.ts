import { randomUUID } from 'node:crypto';
import { IN_FLIGHT_RUN_STATUSES, outcomeOf, type BudgetState, type ConversationMessage, type FinalStatus } from '@app/contracts';
import { In, IsNull, Not, type DataSource, type EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@app/domain';
import { pageOf, type Page, type PageRequest } from '../pages';
import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity } from './run.entities';
import type { LoopState, ModelCallRecord, NewRun, NotificationRecord, OutputRecord, RunFilter, RunRecord, RunWithSteps, StepInstanceRecord, StepWithAudit, StepWithIterations, ToolCallRecord } from './run.records';
import { ITERATIONS_SHOWN_AT_EACH_END, RunRepository, type NewOutput, type StaleRun } from './run.repository';
import { retryingRolledBack } from '../rolled-back';

const NOW = () => 'CURRENT_TIMESTAMP(3)';
const LOST_ATTEMPT = 'Lost: the worker stopped before this attempt finished; Temporal retried the call after its heartbeat timeout';
const INTERRUPTED_ATTEMPT = 'Interrupted: the run ended before this attempt finished';
/** The workflow's column that counts runs ending this way (a cancelled run counts in none). */
const RUN_COUNTERS = { failed: 'failed_runs', successful: 'successful_runs', cancelled: null } as const;
const asRun = (entity: RunEntity) => ({ ...entity }) as RunRecord;
const asInstance = (entity: StepInstanceEntity) => ({ ...entity }) as StepInstanceRecord;

export class TypeormRunRepository extends RunRepository {
  /** `maxRunsInFlight`: runs a user may have running or waiting at once (null: no limit). */
  constructor(
    private readonly dataSource: DataSource,
    private readonly maxRunsInFlight: number | null = null,
  ) {
    super();
  }

  /** Every write runs whole, and again if the server rolled it back (a dead connection, a lost deadlock). */
  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retryingRolledBack(() => this.dataSource.transaction(work));
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

  async discardUnstarted(runUuid: string): Promise<void> {
    await this.transaction(async (manager) => {
      const [run] = (await manager.query('SELECT workflow_uuid FROM workflow_runs WHERE uuid = ? FOR UPDATE', [runUuid])) as { workflow_uuid: string }[];
      if (!run) return;
      await this.giveRunPlace(manager, runUuid);
      // Its step rows, its own trigger output and its audit go with it (ON DELETE CASCADE).
      await manager.query('DELETE FROM workflow_runs WHERE uuid = ?', [runUuid]);
      await manager.query('UPDATE workflows SET total_runs = GREATEST(total_runs - 1, 0) WHERE uuid = ?', [run.workflow_uuid]);
    });
  }

  private async insertRun(run: NewRun): Promise<void> {
    const trigger = 'carried_output_id' in run.trigger_output ? null : run.trigger_output;
    // The user's counter row exists before the transaction, which then only ever updates it: an INSERT
    // IGNORE inside would take a shared lock that two concurrent starts both hold and both need to upgrade.
    await this.dataSource.query('INSERT IGNORE INTO user_quotas (user_id, runs_in_flight) VALUES (?, 0)', [run.user_id]);
    await this.transaction(async (manager) => {
      // First, so that a user's concurrent starts queue on one row lock before taking any other.
      await this.takeRunPlace(manager, run.user_id);
      await manager.insert(RunEntity, {
        uuid: run.uuid,
        user_id: run.user_id,
        workflow_uuid: run.workflow_uuid,
        workflow_name: run.workflow_name,
        status: 'running',
        definition: run.definition as never,
        trigger_output_id: trigger ? trigger.uuid : (run.trigger_output as { carried_output_id: string | null }).carried_output_id,
        temporal_workflow_id: run.temporal_workflow_id,
        schedule_id: run.schedule_id,
        parent_run_uuid: run.resume?.parent_run_uuid ?? null,
        resumed_from_step_uuid: run.resume?.from_step_uuid ?? null,
        dry_run: run.dry_run ?? false,
        budget: (run.budget ? { max_tokens: run.budget.max_tokens, paused_at_tokens: null } : null) as never,
        tool_drift: (run.tool_drift ?? null) as never,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
      });
      if (trigger) await manager.insert(StepOutputEntity, { ...trigger, run_uuid: run.uuid, user_id: run.user_id, step_instance_uuid: null } as never);
      if (run.steps.length) {
        await manager.insert(
          StepInstanceEntity,
          run.steps.map(({ carried, ...step }, position) => ({
            ...step,
            run_uuid: run.uuid,
            user_id: run.user_id,
            position,
            attempts: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            total_tokens: 0,
            ...(carried
              ? { status: 'completed', output_id: carried.output_id, carried_from_run_uuid: carried.from_run_uuid, finished_at: carried.finished_at }
              : { status: 'pending' }),
          })),
        );
      }
      await manager.query('UPDATE workflows SET total_runs = total_runs + 1 WHERE uuid = ?', [run.workflow_uuid]);
    });
  }

  /** A place among the user's runs in flight, taken in the run's own transaction: a refusal writes nothing. */
  private async takeRunPlace(manager: EntityManager, userId: string): Promise<void> {
    const limit = this.maxRunsInFlight ?? Number.MAX_SAFE_INTEGER;
    const taken = (await manager.query('UPDATE user_quotas SET runs_in_flight = runs_in_flight + 1 WHERE user_id = ? AND runs_in_flight < ?', [userId, limit])) as { affectedRows: number };
    if (taken.affectedRows === 0) {
      throw new DomainError(ErrorCode.TooManyRunsInFlight, `You have ${limit} runs running or waiting already: let some end, or cancel them`, { limit });
    }
  }

  private async giveRunPlace(manager: EntityManager, runUuid: string): Promise<void> {
    await manager.query('UPDATE user_quotas q JOIN workflow_runs r ON r.user_id = q.user_id SET q.runs_in_flight = GREATEST(q.runs_in_flight - 1, 0) WHERE r.uuid = ?', [runUuid]);
  }

  async staleRunning(olderThanSeconds: number, limit: number, after: StaleRun | null = null): Promise<StaleRun[]> {
    const page = after ? 'AND (created_at > ? OR (created_at = ? AND uuid > ?))' : '';
    return this.dataSource.query(
      `SELECT uuid, user_id, created_at FROM workflow_runs WHERE status = 'running' AND temporal_workflow_id = CONCAT('run-', uuid)
         AND created_at < NOW(3) - INTERVAL ? SECOND AND created_at > NOW(3) - INTERVAL 1 DAY ${page} ORDER BY created_at, uuid LIMIT ?`,
      [olderThanSeconds, ...(after ? [after.created_at, after.created_at, after.uuid] : []), limit],
    );
  }

  async tokensUsed(runUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query("SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) AS n FROM model_calls WHERE run_uuid = ? AND status = 'completed'", [runUuid])) as { n: number | string }[];
    return Number(row.n);
  }

  async setBudget(runUuid: string, budget: BudgetState, status: 'running' | 'awaiting_input'): Promise<void> {
    await this.dataSource.query('UPDATE workflow_runs SET budget = ?, status = ? WHERE uuid = ? AND status IN (?, ?)', [JSON.stringify(budget), status, runUuid, 'running', 'awaiting_input']);
  }

  async findRun(userId: string, uuid: string): Promise<RunRecord | null> {
    const run = await this.dataSource.manager.findOneBy(RunEntity, { uuid, user_id: userId });
    return run && asRun(run);
  }

  async find(userId: string, uuid: string): Promise<RunWithSteps | null> {
    const manager = this.dataSource.manager;
    const run = await manager.findOneBy(RunEntity, { uuid, user_id: userId });
    if (!run) return null;
    const steps = await manager.find(StepInstanceEntity, { where: { run_uuid: uuid, parent_instance_uuid: IsNull() }, order: { position: 'ASC' } });
    const counts = await this.iterationCounts(uuid);
    // Level by level: a step's iterations (or a graph step's executions), then a looping execution's iterations.
    const nested: StepInstanceEntity[] = [];
    for (let level = steps; level.length; ) {
      level = await this.shownIterations(level, counts);
      nested.push(...level);
    }
    const shown = [...steps, ...nested];
    const ids = shown.map((instance) => instance.uuid);
    const outputIds = [run.trigger_output_id, ...shown.map((instance) => instance.output_id)].filter((id): id is string => Boolean(id));
    // Outputs by id: a resumed run's trigger data and carried outputs are its parent's, referenced.
    const [outputs, modelCalls, toolCalls, resumedBy] = await Promise.all([
      outputIds.length ? manager.findBy(StepOutputEntity, { uuid: In(outputIds) }) : [],
      manager.find(ModelCallEntity, { where: { run_uuid: uuid, step_instance_uuid: In(ids) }, order: { started_at: 'ASC', turn: 'ASC', attempt: 'ASC' } }),
      manager.find(ToolCallEntity, { where: { run_uuid: uuid, step_instance_uuid: In(ids) }, order: { started_at: 'ASC', attempt: 'ASC' } }),
      manager.find(RunEntity, { where: { parent_run_uuid: uuid }, select: { uuid: true, status: true, resumed_from_step_uuid: true, created_at: true }, order: { created_at: 'ASC' } }),
    ]);
    const outputById = new Map(outputs.map((output) => [output.uuid, output as OutputRecord]));
    const withAudit = (instance: StepInstanceEntity): StepWithAudit => ({
      ...asInstance(instance),
      output: (instance.output_id && outputById.get(instance.output_id)) || null,
      model_calls: modelCalls.filter((call) => call.step_instance_uuid === instance.uuid) as ModelCallRecord[],
      tool_calls: toolCalls.filter((call) => call.step_instance_uuid === instance.uuid) as ToolCallRecord[],
    });
    return {
      ...asRun(run),
      resumed_by: resumedBy.map(({ uuid: child, status, resumed_from_step_uuid, created_at }) => ({ uuid: child, status: status as RunRecord['status'], resumed_from_step_uuid, created_at })),
      trigger_output: (run.trigger_output_id && outputById.get(run.trigger_output_id)) || null,
      steps: steps.map(function withIterations(instance: StepInstanceEntity): StepWithIterations {
        return {
          ...withAudit(instance),
          iterations: nested.filter((iteration) => iteration.parent_instance_uuid === instance.uuid).map(withIterations),
          iteration_count: counts.get(instance.uuid) ?? 0,
        };
      }),
    };
  }

  private async iterationCounts(runUuid: string): Promise<Map<string, number>> {
    const rows: { parent: string; n: string | number }[] = await this.dataSource.manager.query(
      'SELECT parent_instance_uuid AS parent, COUNT(*) AS n FROM workflow_step_instances WHERE run_uuid = ? AND parent_instance_uuid IS NOT NULL GROUP BY parent_instance_uuid',
      [runUuid],
    );
    return new Map(rows.map((row) => [row.parent, Number(row.n)]));
  }

  /** The first and last iterations under each of these rows, so a loop of thousands keeps the answer small: one query for them all. */
  private async shownIterations(parents: StepInstanceEntity[], counts: Map<string, number>): Promise<StepInstanceEntity[]> {
    const withRows = parents.map(({ uuid }) => uuid).filter((uuid) => counts.get(uuid));
    if (!withRows.length) return [];
    const query = this.dataSource.manager.createQueryBuilder(StepInstanceEntity, 'i').setParameter('head', ITERATIONS_SHOWN_AT_EACH_END);
    withRows.forEach((parent, k) =>
      query.orWhere(`(i.parent_instance_uuid = :parent${k} AND (i.iteration < :head OR i.iteration >= :tail${k}))`, { [`parent${k}`]: parent, [`tail${k}`]: counts.get(parent)! - ITERATIONS_SHOWN_AT_EACH_END }),
    );
    return query.orderBy('i.parent_instance_uuid', 'ASC').addOrderBy('i.iteration', 'ASC').getMany();
  }

  async list(userId: string, filter: RunFilter, request: PageRequest): Promise<Page<RunRecord>> {
    // Every column but the definition snapshot and a conversation's transcript (large, and not shown in lists).
    const columns = this.dataSource.getMetadata(RunEntity).columns.map((column) => column.propertyName).filter((name) => name !== 'definition' && name !== 'messages');
    const query = this.dataSource.getRepository(RunEntity).createQueryBuilder('row').select(columns.map((name) => `row.${name}`)).where('row.user_id = :userId', { userId });
    if (filter.status) query.andWhere('row.status = :status', { status: filter.status });
    if (filter.workflow_uuid) query.andWhere('row.workflow_uuid = :workflowUuid', { workflowUuid: filter.workflow_uuid });
    if (filter.schedule_id) query.andWhere('row.schedule_id = :scheduleId', { scheduleId: filter.schedule_id });
    const page = await pageOf(query, 'created_at', request);
    return { ...page, items: page.items.map(asRun) };
  }

  async findOutput(userId: string, outputId: string): Promise<OutputRecord | null> {
    return (await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: outputId, user_id: userId })) as OutputRecord | null;
  }

  async outputOfStep(runUuid: string, stepUuid: string): Promise<OutputRecord | null> {
    const step = await this.stepRow(runUuid, stepUuid);
    return step && this.outputBeneath(runUuid, stepUuid, step);
  }

  private async outputBeneath(runUuid: string, stepUuid: string, step: StepInstanceEntity): Promise<OutputRecord | null> {
    const manager = this.dataSource.manager;
    // The step's own output; while it has none (a loop or a graph step still running), the latest one beneath
    // it: an iteration's, an execution's, or an iteration's inside a looping execution. A looping execution
    // ends after its iterations, so it comes first even when both ended within the same millisecond.
    const instance =
      step.status === 'completed' && step.output_id
        ? step
        : await manager
            .createQueryBuilder(StepInstanceEntity, 'i')
            .where("i.run_uuid = :run AND i.step_definition_uuid = :step AND i.parent_instance_uuid IS NOT NULL AND i.status = 'completed' AND i.output_id IS NOT NULL", { run: runUuid, step: stepUuid })
            .orderBy('i.finished_at', 'DESC')
            .addOrderBy('CASE WHEN i.parent_instance_uuid = :top THEN 0 ELSE 1 END', 'ASC')
            .addOrderBy('i.iteration', 'DESC')
            .setParameter('top', step.uuid)
            .getOne();
    if (!instance?.output_id) return null;
    return (await manager.findOneBy(StepOutputEntity, { uuid: instance.output_id })) as OutputRecord | null;
  }

  async outputHistory(runUuid: string, stepUuid: string, limit: number): Promise<OutputRecord[]> {
    // The rows right beneath the step's: a chain loop's iterations, a graph step's executions (a looping
    // execution counts once, with its loop's output).
    const step = await this.stepRow(runUuid, stepUuid);
    if (!step) return [];
    const iterations = await this.completedIterations({ parent_instance_uuid: step.uuid }, limit);
    if (iterations.length) return iterations;
    const own = await this.outputBeneath(runUuid, stepUuid, step);
    return own ? [own] : [];
  }

  private stepRow(runUuid: string, stepUuid: string): Promise<StepInstanceEntity | null> {
    return this.dataSource.manager.findOne(StepInstanceEntity, {
      where: { run_uuid: runUuid, step_definition_uuid: stepUuid, parent_instance_uuid: IsNull() },
      select: { uuid: true, status: true, output_id: true },
    });
  }

  iterationOutputs(parentInstanceUuid: string, limit?: number): Promise<OutputRecord[]> {
    return this.completedIterations({ parent_instance_uuid: parentInstanceUuid }, limit);
  }

  /** Outputs of the completed iterations matching `where`, the last `limit` (or all), oldest first. */
  private async completedIterations(where: Record<string, unknown>, limit?: number): Promise<OutputRecord[]> {
    const manager = this.dataSource.manager;
    const rows = await manager.find(StepInstanceEntity, {
      where: { ...where, status: 'completed', output_id: Not(IsNull()) },
      select: { uuid: true, output_id: true, iteration: true },
      order: { iteration: 'DESC' },
      ...(limit !== undefined ? { take: limit } : {}),
    });
    if (!rows.length) return [];
    const outputs = await manager.findBy(StepOutputEntity, { uuid: In(rows.map((row) => row.output_id!)) });
    const byId = new Map(outputs.map((output) => [output.uuid, output as OutputRecord]));
    return rows.reverse().map((row) => byId.get(row.output_id!)!);
  }

  async openIteration(parentInstanceUuid: string, instanceUuid: string, iteration: number): Promise<void> {
    // Copies the step's identity from its row; INSERT IGNORE keeps a retried activity's row as it is.
    await this.transaction((manager) =>
      manager.query(
        `INSERT IGNORE INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status, attempts, parent_instance_uuid, iteration)
       SELECT ?, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, 'pending', 0, uuid, ? FROM workflow_step_instances WHERE uuid = ?`,
        [instanceUuid, iteration, parentInstanceUuid],
      ),
    );
  }

  async saveLoopState(instanceUuid: string, state: LoopState): Promise<void> {
    await this.transaction((manager) => manager.update(StepInstanceEntity, { uuid: instanceUuid }, { loop_state: state as never }));
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

  async awaitInput(runUuid: string, instanceUuid: string, inputData: unknown): Promise<void> {
    await this.transaction(async (manager) => {
      await manager
        .createQueryBuilder()
        .update(StepInstanceEntity)
        .set({ status: 'awaiting_input', input_data: inputData as never, attempts: () => 'attempts + 1', started_at: () => 'COALESCE(started_at, CURRENT_TIMESTAMP(3))' })
        .where('uuid = :uuid AND status IN (:...open)', { uuid: instanceUuid, open: ['pending', 'running', 'awaiting_input'] })
        .execute();
      await manager.update(RunEntity, { uuid: runUuid, status: 'running' }, { status: 'awaiting_input' });
    });
  }

  async inputReceived(runUuid: string): Promise<void> {
    await this.transaction((manager) =>
      manager.query(
        `UPDATE workflow_runs SET status = 'running' WHERE uuid = ? AND status = 'awaiting_input'
           AND NOT EXISTS (SELECT 1 FROM workflow_step_instances WHERE run_uuid = ? AND status = 'awaiting_input')`,
        [runUuid, runUuid],
      ),
    );
  }

  async saveMessages(instanceUuid: string, messages: unknown[]): Promise<void> {
    await this.transaction((manager) => manager.update(StepInstanceEntity, { uuid: instanceUuid }, { messages: messages as never }));
  }

  async storeOutput(output: NewOutput): Promise<void> {
    await this.transaction((manager) => manager.insert(StepOutputEntity, output as never));
  }

  async completeStep(instanceUuid: string, output: NewOutput | null, messages?: unknown[]): Promise<void> {
    await this.transaction(async (manager) => {
      if (output) await manager.insert(StepOutputEntity, output as never);
      const closing = { status: 'completed', output_id: output?.uuid ?? null, error_message: null, ...(messages ? { messages: messages as never } : {}) };
      await this.closeStep(manager, instanceUuid, closing, false);
    });
  }

  async completeStepWithOutput(instanceUuid: string, outputId: string): Promise<void> {
    await this.transaction((manager) => this.closeStep(manager, instanceUuid, { status: 'completed', output_id: outputId, error_message: null }, false));
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

  async finishRun(runUuid: string, status: FinalStatus, errorMessage: string | null): Promise<boolean> {
    return this.transaction(async (manager) => {
      await manager.update(StepInstanceEntity, { run_uuid: runUuid, status: In(['pending', 'running', 'awaiting_input']) }, { status: 'skipped' });
      for (const entity of [ModelCallEntity, ToolCallEntity]) {
        await manager.update(entity, { run_uuid: runUuid, status: 'running' }, { status: 'failed', error_message: INTERRUPTED_ATTEMPT });
      }
      const tokens = await this.sumTokens(manager, 'run_uuid', runUuid);
      const ended = await manager
        .createQueryBuilder()
        .update(RunEntity)
        .set({ status, error_message: errorMessage, ...tokens, finished_at: NOW })
        .where('uuid = :uuid AND status IN (:...inFlight)', { uuid: runUuid, inFlight: IN_FLIGHT_RUN_STATUSES })
        .execute();
      // Counted once, by the update that ended the run: exact however many runs end at once.
      const counter = RUN_COUNTERS[outcomeOf(status)];
      if (ended.affected === 1) await this.giveRunPlace(manager, runUuid);
      if (ended.affected === 1 && counter) {
        await manager.query(`UPDATE workflows w JOIN workflow_runs r ON r.workflow_uuid = w.uuid SET w.${counter} = w.${counter} + 1 WHERE r.uuid = ?`, [runUuid]);
      }
      return ended.affected === 1;
    });
  }

  async conversation(runUuid: string): Promise<ConversationMessage[]> {
    const run = await this.dataSource.manager.findOne(RunEntity, { where: { uuid: runUuid }, select: { uuid: true, messages: true } });
    return ((run?.messages as (ConversationMessage | null)[] | null) ?? []).filter((message): message is ConversationMessage => message !== null);
  }

  async putConversationMessage(runUuid: string, position: number, message: ConversationMessage): Promise<void> {
    await this.transaction(async (manager) => {
      const run = await manager.findOne(RunEntity, { where: { uuid: runUuid }, select: { uuid: true, messages: true }, lock: { mode: 'pessimistic_write' } });
      const messages = [...((run?.messages as ConversationMessage[] | null) ?? [])];
      messages[position] = message;
      await manager.update(RunEntity, { uuid: runUuid }, { messages: messages as never });
    });
  }

  async setConversationStatus(runUuid: string, status: 'running' | 'awaiting_input'): Promise<void> {
    const from = status === 'running' ? 'awaiting_input' : 'running';
    await this.transaction((manager) => manager.update(RunEntity, { uuid: runUuid, status: from }, { status }));
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

  /** A run's tokens, or a step's: a looping step's are its iterations', a graph step's its executions'. */
  private async sumTokens(manager: EntityManager, column: 'run_uuid' | 'step_instance_uuid', value: string) {
    // A join on the step, its iterations or executions, and a looping execution's iterations (by index), not
    // an IN over a UNION, which MariaDB evaluates row by row.
    const from =
      column === 'run_uuid'
        ? 'model_calls m WHERE m.run_uuid = ?'
        : `(SELECT ? AS uuid
            UNION ALL SELECT uuid FROM workflow_step_instances WHERE parent_instance_uuid = ?
            UNION ALL SELECT n.uuid FROM workflow_step_instances c JOIN workflow_step_instances n ON n.parent_instance_uuid = c.uuid WHERE c.parent_instance_uuid = ?) s
           JOIN model_calls m ON m.step_instance_uuid = s.uuid WHERE TRUE`;
    const [row] = await manager.query(
      `SELECT COALESCE(SUM(m.prompt_tokens), 0) AS p, COALESCE(SUM(m.completion_tokens), 0) AS c, COALESCE(SUM(m.total_tokens), 0) AS t
       FROM ${from} AND m.status = 'completed'`,
      column === 'run_uuid' ? [value] : [value, value, value],
    );
    return { prompt_tokens: Number(row.p), completion_tokens: Number(row.c), total_tokens: Number(row.t) };
  }
}

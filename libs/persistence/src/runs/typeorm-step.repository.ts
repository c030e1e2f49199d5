import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { execute, insertRow, insertWhere, updateRow } from '../entity-statements';
import { affectedRows, type OneTripPool, type Statement } from '../one-trip-pool';
import { isDuplicateKey } from '../rolled-back';
import { attemptStatement, MODEL_CALLS, startAttempt, type ModelCallAttempt } from './call-attempts';
import type { NewOutput } from './output.repository';
import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity } from './run.entities';
import { stepInstanceOf } from './run.mappers';
import type { LoopState, RunEnding, StepInstanceRecord } from './run.records';
import { runEndStatements } from './run-end-sql';
import {
  appendMessageStatements,
  closeStepStatement,
  dropAppendedMessages,
  jsonOf,
  lockRunOf,
  MESSAGE_AT,
  MESSAGES_OF,
  messagesFromRows,
  runStatement,
  runTransaction,
  type StepClosing,
} from './run-sql';
import { StepRepository, type StepCompletion } from './step.repository';

export class TypeormStepRepository extends StepRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly oneTrip: OneTripPool,
  ) {
    super();
  }

  async instance(instanceUuid: string): Promise<StepInstanceRecord | null> {
    const row = await this.dataSource.manager.findOneBy(StepInstanceEntity, { uuid: instanceUuid });
    return row ? stepInstanceOf(row) : null;
  }

  startStep(instanceUuid: string, inputData: unknown): Promise<boolean> {
    return runStatement(this.dataSource, (manager) => markStarted(manager, instanceUuid, inputData));
  }

  async startStepWithCall(
    instanceUuid: string,
    inputData: unknown,
    messages: { list: unknown[]; apart: boolean },
    call: ModelCallAttempt,
    after?: StepCompletion,
  ): Promise<number | null> {
    // The common case, a call's first attempt with the prompt in the start's own statement: one round trip.
    if (call.attempt === 1 && !messages.apart) {
      const manager = this.dataSource.manager;
      // The call's row goes in only where the step's row is now running: where the UPDATE found it open.
      const firstAttempt = insertWhere(
        manager,
        ModelCallEntity,
        { ...call, uuid: randomUUID() } as never,
        "workflow_step_instances WHERE uuid = ? AND status = 'running'",
        [instanceUuid],
      );
      const before = after ? this.completionStatements(after) : [];
      try {
        const results = await this.oneTrip.transaction([
          ...before,
          startedStatement(manager, instanceUuid, inputData, messages.list),
          firstAttempt,
        ]);
        return affectedRows(results[before.length]) === 1 ? 1 : null;
      } catch (error) {
        // Its first attempt has a row: a worker that died ran the call. The transaction below numbers the next.
        if (!isDuplicateKey(error)) throw error;
      }
    }
    if (after) await this.complete(after);
    return runTransaction(this.dataSource, async (manager) => {
      if (!(await markStarted(manager, instanceUuid, inputData, messages.apart ? undefined : messages.list))) return null;
      if (messages.apart) await manager.update(StepInstanceEntity, { uuid: instanceUuid }, { model_messages: messages.list as never });
      return startAttempt(manager, MODEL_CALLS, call);
    });
  }

  async saveMessages(instanceUuid: string, messages: unknown[]): Promise<void> {
    await this.oneTrip.transaction([
      { sql: 'UPDATE workflow_step_instances SET model_messages = ? WHERE uuid = ?', params: [JSON.stringify(messages), instanceUuid] },
      dropAppendedMessages(instanceUuid),
    ]);
  }

  async startStepBeginningMessages(
    instanceUuid: string,
    inputData: unknown,
    messages: { list: unknown[]; apart: boolean },
  ): Promise<boolean> {
    const begin = beginMessagesStatement(instanceUuid, messages.list);
    if (messages.apart) {
      await this.startStep(instanceUuid, inputData);
      return affectedRows(await runStatement(this.dataSource, (manager) => execute(manager, begin))) === 1;
    }
    const started = startedStatement(this.dataSource.manager, instanceUuid, inputData);
    return affectedRows((await this.oneTrip.transaction([started, begin]))[1]) === 1;
  }

  async messagesOf(instanceUuid: string): Promise<unknown[] | null> {
    return messagesFromRows(await this.dataSource.query(MESSAGES_OF, [instanceUuid, instanceUuid]));
  }

  async messageAt(instanceUuid: string, position: number): Promise<{ length: number; message: unknown }> {
    const [row] = (await this.dataSource.query(MESSAGE_AT, [position, `$[${position}]`, instanceUuid])) as {
      length: number | string | null;
      message: unknown;
    }[];
    return { length: Number(row?.length ?? 0), message: jsonOf(row?.message) };
  }

  async appendMessage(instanceUuid: string, position: number, message: unknown): Promise<boolean> {
    const [insert] = appendMessageStatements(instanceUuid, position, message);
    try {
      const result = (await runStatement(this.dataSource, (manager) => manager.query(insert.sql, insert.params))) as {
        affectedRows: number;
      };
      return result.affectedRows === 1;
    } catch (error) {
      // A racing append took the position first.
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  completeStep(instanceUuid: string, output: NewOutput | null, closing: Pick<StepCompletion, 'messages' | 'call'> = {}): Promise<void> {
    return this.complete({ instance_uuid: instanceUuid, output, ...closing });
  }

  private async complete(completion: StepCompletion): Promise<void> {
    const { output, messages, call } = completion;
    if (!output && !call && !messages) {
      const [close] = this.completionStatements(completion);
      return void (await runStatement(this.dataSource, (manager) => manager.query(close.sql, close.params)));
    }
    await this.oneTrip.transaction(this.completionStatements(completion));
  }

  async completeStepEndingRun(completion: StepCompletion, ending: RunEnding): Promise<boolean> {
    const results = await this.oneTrip.transaction([
      ...this.completionStatements(completion),
      ...runEndStatements(this.dataSource.manager, ending),
    ]);
    return affectedRows(results[results.length - 1]) > 0;
  }

  /** The statements of a completion, in order. */
  private completionStatements({ instance_uuid: instanceUuid, output, messages, call }: StepCompletion): Statement[] {
    const manager = this.dataSource.manager;
    const close = closeStepStatement(
      instanceUuid,
      { status: 'completed', output_id: output?.uuid ?? null, error_message: null, model_messages: messages },
      false,
    );
    return [
      // The messages written whole hold the appended ones.
      ...(messages ? [dropAppendedMessages(instanceUuid)] : []),
      // The call's end first: the close sums the tokens of the step's completed calls.
      ...(call ? [attemptStatement(manager, MODEL_CALLS, call)] : []),
      ...(output ? [insertRow(manager, StepOutputEntity, output as never)] : []),
      close,
    ];
  }

  async completeStepWithOutput(instanceUuid: string, outputId: string): Promise<void> {
    await runStatement(this.dataSource, (manager) =>
      closeStep(manager, instanceUuid, { status: 'completed', output_id: outputId, error_message: null }, false),
    );
  }

  async failStep(instanceUuid: string, errorMessage: string): Promise<void> {
    await runStatement(this.dataSource, (manager) =>
      closeStep(manager, instanceUuid, { status: 'failed', error_message: errorMessage }, true),
    );
  }

  async awaitInput(runUuid: string, instanceUuid: string, inputData: unknown): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      await manager
        .createQueryBuilder()
        .update(StepInstanceEntity)
        .set({
          status: 'awaiting_input',
          input_data: inputData as never,
          attempts: () => 'attempts + 1',
          started_at: () => 'COALESCE(started_at, CURRENT_TIMESTAMP(3))',
        })
        .where('uuid = :uuid AND status IN (:...open)', { uuid: instanceUuid, open: ['pending', 'running', 'awaiting_input'] })
        .execute();
      await manager.update(RunEntity, { uuid: runUuid, status: 'running' }, { status: 'awaiting_input' });
    });
  }

  async callersWait(runUuid: string, waiting: boolean): Promise<void> {
    const [from, to] = waiting ? ['running', 'awaiting_input'] : ['awaiting_input', 'running'];
    // Nesting is bounded (SUB_WORKFLOW_MAX_DEPTH); the bound here only guards against a row that names itself.
    for (let run = runUuid, level = 0; level < 100; level++) {
      const [caller] = (await this.dataSource.query('SELECT parent_run_uuid, parent_step_uuid FROM workflow_runs WHERE uuid = ?', [
        run,
      ])) as {
        parent_run_uuid: string | null;
        parent_step_uuid: string | null;
      }[];
      if (!caller?.parent_run_uuid || !caller.parent_step_uuid) return;
      const { parent_run_uuid: parent, parent_step_uuid: step } = caller;
      // Back to running only when no other child of it, nor a step of its own, still waits.
      const stillWaiting = waiting
        ? ''
        : ` AND NOT EXISTS (SELECT 1 FROM workflow_step_instances s WHERE s.run_uuid = ? AND s.status = 'awaiting_input' AND s.step_definition_uuid <> ?)
            AND NOT EXISTS (SELECT 1 FROM workflow_runs c WHERE c.parent_run_uuid = ? AND c.parent_step_uuid IS NOT NULL AND c.status = 'awaiting_input')`;
      await runTransaction(this.dataSource, async (manager) => {
        await manager.query(
          `UPDATE workflow_step_instances SET status = ? WHERE run_uuid = ? AND step_definition_uuid = ? AND status = ?`,
          [to, parent, step, from],
        );
        await manager.query(`UPDATE workflow_runs SET status = ? WHERE uuid = ? AND status = ?${stillWaiting}`, [
          to,
          parent,
          from,
          ...(waiting ? [] : [parent, step, parent]),
        ]);
      });
      run = parent;
    }
  }

  async inputReceived(runUuid: string): Promise<void> {
    await runTransaction(this.dataSource, (manager) =>
      manager.query(
        `UPDATE workflow_runs SET status = 'running' WHERE uuid = ? AND status = 'awaiting_input'
           AND NOT EXISTS (SELECT 1 FROM workflow_step_instances WHERE run_uuid = ? AND status = 'awaiting_input')`,
        [runUuid, runUuid],
      ),
    );
  }

  async openExecution(parentInstanceUuid: string, instanceUuid: string, index: number): Promise<void> {
    // Copies the step's identity from its row; INSERT IGNORE keeps a retried activity's row as it is.
    const lock = lockRunOf(parentInstanceUuid);
    await this.oneTrip.transaction([
      lock,
      {
        sql: `INSERT IGNORE INTO workflow_step_instances (uuid, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, status, attempts, parent_instance_uuid, execution_index)
       SELECT ?, run_uuid, user_id, step_definition_uuid, step_name, step_type, position, 'pending', 0, uuid, ? FROM workflow_step_instances WHERE uuid = ?`,
        params: [instanceUuid, index, parentInstanceUuid],
      },
    ]);
  }

  async failedExecutions(parentInstanceUuid: string, withErrors: number, errorChars: number) {
    const failed = "FROM workflow_step_instances WHERE parent_instance_uuid = ? AND status = 'failed' ORDER BY execution_index";
    const manager = this.dataSource.manager;
    const indexes = (await manager.query(`SELECT execution_index AS i ${failed}`, [parentInstanceUuid])) as { i: number }[];
    const errors = (await manager.query(`SELECT LEFT(error_message, ?) AS e ${failed} LIMIT ?`, [
      errorChars,
      parentInstanceUuid,
      withErrors,
    ])) as { e: string | null }[];
    return indexes.map(({ i }, k) => (k < errors.length ? { index: i, error_message: errors[k].e ?? '' } : { index: i }));
  }

  async saveLoopState(instanceUuid: string, state: LoopState): Promise<void> {
    await runTransaction(this.dataSource, (manager) =>
      manager.update(StepInstanceEntity, { uuid: instanceUuid }, { loop_state: state as never }),
    );
  }
}

/** Marks a step running and counts the attempt (its first start time kept); false when the row was not pending or running. */
async function markStarted(manager: EntityManager, instanceUuid: string, inputData: unknown, messages?: unknown[]): Promise<boolean> {
  return affectedRows(await execute(manager, startedStatement(manager, instanceUuid, inputData, messages))) === 1;
}

/** The step's first messages, where it holds none yet (StepRepository.startStepBeginningMessages). */
const beginMessagesStatement = (instanceUuid: string, messages: unknown[]): Statement => ({
  sql: 'UPDATE workflow_step_instances SET model_messages = ? WHERE uuid = ? AND (model_messages IS NULL OR JSON_LENGTH(model_messages) = 0)',
  params: [JSON.stringify(messages), instanceUuid],
});

/** The step's row set running (one attempt more) with its input, and its prompt when given, while it is open. */
function startedStatement(manager: EntityManager, instanceUuid: string, inputData: unknown, messages?: unknown[]) {
  return updateRow(manager, StepInstanceEntity, instanceUuid, {
    values: { status: 'running', input_data: inputData as never, ...(messages ? { model_messages: messages as never } : {}) },
    computed: { attempts: 'attempts + 1', started_at: 'COALESCE(started_at, CURRENT_TIMESTAMP(3))' },
    condition: { sql: "status IN ('pending', 'running')", params: [] },
  });
}

async function closeStep(manager: EntityManager, instanceUuid: string, closing: StepClosing, unlessCompleted: boolean): Promise<void> {
  await execute(manager, closeStepStatement(instanceUuid, closing, unlessCompleted));
}

// GET /runs/{uuid}'s read: the run, its steps in order with the rows beneath them (bounded), their outputs
// and their model and tool calls, the runs that resume it and the runs its sub_workflow steps started.
import { In, IsNull, Not, type DataSource } from 'typeorm';
import { ModelCallEntity, RunEntity, StepInstanceEntity, StepOutputEntity, ToolCallEntity } from './run.entities';
import { modelCallOf, outputOf, runOf, stepInstanceOf, toolCallOf } from './run.mappers';
import type {
  ModelCallRecord,
  OutputRecord,
  RunRecord,
  RunWithSteps,
  StepInstanceRecord,
  StepWithAudit,
  StepWithExecutions,
  ToolCallRecord,
} from './run.records';
import { EXECUTIONS_SHOWN_AT_EACH_END } from './run.repository';
import { jsonOf } from './run-sql';

/** A step's messages with those appended after its model_messages. */
const withAppended = (step: StepInstanceRecord, appended: unknown[] | undefined): StepInstanceRecord =>
  appended ? { ...step, messages: [...(step.messages ?? []), ...appended] } : step;

/** What a run's steps show beside their rows: outputs by id, calls by step row. */
interface StepAudit {
  outputById: Map<string, OutputRecord>;
  modelCalls: ModelCallRecord[];
  toolCalls: ToolCallRecord[];
  /** The messages appended to a step's model_messages (an agent's while it runs), by step row, in order. */
  appended: Map<string, unknown[]>;
}

export class RunWithStepsQuery {
  constructor(private readonly dataSource: DataSource) {}

  async find(userId: string, uuid: string): Promise<RunWithSteps | null> {
    const manager = this.dataSource.manager;
    const run = await manager.findOneBy(RunEntity, { uuid, user_id: userId });
    if (!run) return null;
    const steps = await manager.find(StepInstanceEntity, {
      where: { run_uuid: uuid, parent_instance_uuid: IsNull() },
      order: { position: 'ASC' },
    });
    const counts = await this.executionCounts(uuid);
    // Level by level: a step's iterations (or a graph step's executions), then a looping execution's iterations.
    const nested: StepInstanceEntity[] = [];
    for (let level = steps; level.length;) {
      level = await this.shownExecutions(level, counts);
      nested.push(...level);
    }
    const shown = [...steps, ...nested];
    const [audit, resumedBy, children] = await Promise.all([this.auditOf(run, shown), this.resumedBy(uuid), this.children(uuid)]);
    const withAudit = (instance: StepInstanceEntity): StepWithAudit => ({
      ...withAppended(stepInstanceOf(instance), audit.appended.get(instance.uuid)),
      output: (instance.output_id && audit.outputById.get(instance.output_id)) || null,
      model_calls: audit.modelCalls.filter((call) => call.step_instance_uuid === instance.uuid),
      tool_calls: audit.toolCalls.filter((call) => call.step_instance_uuid === instance.uuid),
    });
    return {
      ...runOf(run),
      resumed_by: resumedBy,
      children,
      trigger_output: (run.trigger_output_id && audit.outputById.get(run.trigger_output_id)) || null,
      steps: steps.map(function withExecutions(instance: StepInstanceEntity): StepWithExecutions {
        return {
          ...withAudit(instance),
          executions: nested.filter((execution) => execution.parent_instance_uuid === instance.uuid).map(withExecutions),
          execution_count: counts.get(instance.uuid) ?? 0,
        };
      }),
    };
  }

  /** Outputs by id (a resumed run's trigger data and carried outputs are its parent's, referenced) and the shown rows' calls. */
  private async auditOf(run: RunEntity, shown: StepInstanceEntity[]): Promise<StepAudit> {
    const manager = this.dataSource.manager;
    const ids = shown.map((instance) => instance.uuid);
    const outputIds = [run.trigger_output_id, ...shown.map((instance) => instance.output_id)].filter((id): id is string => Boolean(id));
    const [outputs, modelCalls, toolCalls, appended] = await Promise.all([
      outputIds.length ? manager.findBy(StepOutputEntity, { uuid: In(outputIds) }) : [],
      manager.find(ModelCallEntity, {
        where: { run_uuid: run.uuid, step_instance_uuid: In(ids) },
        order: { started_at: 'ASC', turn: 'ASC', attempt: 'ASC' },
      }),
      manager.find(ToolCallEntity, {
        where: { run_uuid: run.uuid, step_instance_uuid: In(ids) },
        order: { started_at: 'ASC', attempt: 'ASC' },
      }),
      ids.length
        ? (manager.query('SELECT instance_uuid, message FROM step_messages WHERE instance_uuid IN (?) ORDER BY instance_uuid, position', [
            ids,
          ]) as Promise<{ instance_uuid: string; message: unknown }[]>)
        : [],
    ]);
    const appendedTo = new Map<string, unknown[]>();
    for (const row of appended) {
      const list = appendedTo.get(row.instance_uuid) ?? [];
      list.push(jsonOf(row.message));
      appendedTo.set(row.instance_uuid, list);
    }
    return {
      outputById: new Map(outputs.map((output) => [output.uuid, outputOf(output)])),
      modelCalls: modelCalls.map(modelCallOf),
      toolCalls: toolCalls.map(toolCallOf),
      appended: appendedTo,
    };
  }

  private async resumedBy(runUuid: string): Promise<RunWithSteps['resumed_by']> {
    const children = await this.dataSource.manager.find(RunEntity, {
      where: { parent_run_uuid: runUuid, parent_step_uuid: IsNull() },
      select: { uuid: true, status: true, resumed_from_step_uuid: true, created_at: true },
      order: { created_at: 'ASC' },
    });
    return children.map(({ uuid, status, resumed_from_step_uuid, created_at }) => ({
      uuid,
      status: status as RunRecord['status'],
      resumed_from_step_uuid,
      created_at,
    }));
  }

  private async children(runUuid: string): Promise<RunWithSteps['children']> {
    const rows = await this.dataSource.manager.find(RunEntity, {
      where: { parent_run_uuid: runUuid, parent_step_uuid: Not(IsNull()) },
      select: { uuid: true, workflow_uuid: true, status: true, parent_step_uuid: true, created_at: true },
      order: { created_at: 'ASC' },
    });
    return rows.map(({ uuid, workflow_uuid, status, parent_step_uuid, created_at }) => ({
      uuid,
      workflow_uuid,
      status: status as RunRecord['status'],
      parent_step_uuid,
      created_at,
    }));
  }

  private async executionCounts(runUuid: string): Promise<Map<string, number>> {
    const rows: { parent: string; n: string | number }[] = await this.dataSource.manager.query(
      'SELECT parent_instance_uuid AS parent, COUNT(*) AS n FROM workflow_step_instances WHERE run_uuid = ? AND parent_instance_uuid IS NOT NULL GROUP BY parent_instance_uuid',
      [runUuid],
    );
    return new Map(rows.map((row) => [row.parent, Number(row.n)]));
  }

  /** The first and last execution rows under each of these rows, so a loop of thousands keeps the answer small: one query for them all. */
  private async shownExecutions(parents: StepInstanceEntity[], counts: Map<string, number>): Promise<StepInstanceEntity[]> {
    const withRows = parents.map(({ uuid }) => uuid).filter((uuid) => counts.get(uuid));
    if (!withRows.length) return [];
    const query = this.dataSource.manager.createQueryBuilder(StepInstanceEntity, 'i').setParameter('head', EXECUTIONS_SHOWN_AT_EACH_END);
    withRows.forEach((parent, k) =>
      query.orWhere(`(i.parent_instance_uuid = :parent${k} AND (i.execution_index < :head OR i.execution_index >= :tail${k}))`, {
        [`parent${k}`]: parent,
        [`tail${k}`]: counts.get(parent)! - EXECUTIONS_SHOWN_AT_EACH_END,
      }),
    );
    return query.orderBy('i.parent_instance_uuid', 'ASC').addOrderBy('i.execution_index', 'ASC').getMany();
  }
}

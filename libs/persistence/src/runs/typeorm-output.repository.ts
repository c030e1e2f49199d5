import { In, IsNull, Not, type DataSource } from 'typeorm';
import { OutputRepository, type NewOutput } from './output.repository';
import { RunEntity, StepInstanceEntity, StepOutputEntity } from './run.entities';
import { outputOf } from './run.mappers';
import type { OutputRecord } from './run.records';
import { runTransaction } from './run-sql';

export class TypeormOutputRepository extends OutputRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async findOutput(userId: string, outputId: string): Promise<OutputRecord | null> {
    const row = await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: outputId, user_id: userId });
    return row && outputOf(row);
  }

  async triggerOutput(runUuid: string): Promise<OutputRecord | null> {
    const row = await this.outputs()
      .innerJoin(RunEntity, 'r', 'r.trigger_output_id = o.uuid')
      .where('r.uuid = :runUuid', { runUuid })
      .getOne();
    return row && outputOf(row);
  }

  async outputOfStep(runUuid: string, stepUuid: string): Promise<OutputRecord | null> {
    // A completed step's own output in one read (every step reads the one before it); else the step's row decides.
    const own = await this.outputs()
      .innerJoin(StepInstanceEntity, 'i', "i.output_id = o.uuid AND i.status = 'completed'")
      .where('i.run_uuid = :runUuid AND i.step_definition_uuid = :stepUuid AND i.parent_instance_uuid IS NULL', { runUuid, stepUuid })
      .getOne();
    if (own) return outputOf(own);
    const step = await this.stepRow(runUuid, stepUuid);
    return step && this.outputBeneath(runUuid, stepUuid, step);
  }

  async outputHistory(runUuid: string, stepUuid: string, limit: number): Promise<OutputRecord[]> {
    // The rows right beneath the step's: a chain loop's iterations, a graph step's executions (a looping
    // execution counts once, with its loop's output).
    const step = await this.stepRow(runUuid, stepUuid);
    if (!step) return [];
    const iterations = await this.completedExecutions({ parent_instance_uuid: step.uuid }, limit);
    if (iterations.length) return iterations.map(({ output }) => output);
    const own = await this.outputBeneath(runUuid, stepUuid, step);
    return own ? [own] : [];
  }

  async executionOutputs(parentInstanceUuid: string, limit?: number): Promise<OutputRecord[]> {
    return (await this.completedExecutions({ parent_instance_uuid: parentInstanceUuid }, limit)).map(({ output }) => output);
  }

  async executionOutputsByIndex(parentInstanceUuid: string): Promise<Map<number, OutputRecord>> {
    const executions = await this.completedExecutions({ parent_instance_uuid: parentInstanceUuid });
    return new Map(executions.map(({ index, output }) => [index, output]));
  }

  async executionOutputBytes(parentInstanceUuid: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      "SELECT COALESCE(SUM(o.size_bytes), 0) AS n FROM workflow_step_instances i JOIN step_outputs o ON o.uuid = i.output_id WHERE i.parent_instance_uuid = ? AND i.status = 'completed'",
      [parentInstanceUuid],
    )) as { n: number | string }[];
    return Number(row.n);
  }

  async storeOutput(output: NewOutput): Promise<void> {
    await runTransaction(this.dataSource, (manager) => manager.insert(StepOutputEntity, output as never));
  }

  private outputs() {
    return this.dataSource.manager.createQueryBuilder(StepOutputEntity, 'o');
  }

  private async byId(outputId: string): Promise<OutputRecord | null> {
    const row = await this.dataSource.manager.findOneBy(StepOutputEntity, { uuid: outputId });
    return row && outputOf(row);
  }

  private stepRow(runUuid: string, stepUuid: string): Promise<StepInstanceEntity | null> {
    return this.dataSource.manager.findOne(StepInstanceEntity, {
      where: { run_uuid: runUuid, step_definition_uuid: stepUuid, parent_instance_uuid: IsNull() },
      select: { uuid: true, status: true, output_id: true },
    });
  }

  private async outputBeneath(runUuid: string, stepUuid: string, step: StepInstanceEntity): Promise<OutputRecord | null> {
    // The step's own output; while it has none (a loop or a graph step still running), the latest one beneath
    // it: an iteration's, an execution's, or an iteration's inside a looping execution. A looping execution
    // ends after its iterations, so it comes first even when both ended within the same millisecond.
    const instance =
      step.status === 'completed' && step.output_id
        ? step
        : await this.dataSource.manager
            .createQueryBuilder(StepInstanceEntity, 'i')
            .where(
              "i.run_uuid = :run AND i.step_definition_uuid = :step AND i.parent_instance_uuid IS NOT NULL AND i.status = 'completed' AND i.output_id IS NOT NULL",
              { run: runUuid, step: stepUuid },
            )
            .orderBy('i.finished_at', 'DESC')
            .addOrderBy('CASE WHEN i.parent_instance_uuid = :top THEN 0 ELSE 1 END', 'ASC')
            .addOrderBy('i.execution_index', 'DESC')
            .setParameter('top', step.uuid)
            .getOne();
    return instance?.output_id ? this.byId(instance.output_id) : null;
  }

  /** Outputs of the completed iterations matching `where` with their index, the last `limit` (or all), oldest first. */
  private async completedExecutions(where: Record<string, unknown>, limit?: number): Promise<{ index: number; output: OutputRecord }[]> {
    const manager = this.dataSource.manager;
    const rows = await manager.find(StepInstanceEntity, {
      where: { ...where, status: 'completed', output_id: Not(IsNull()) },
      select: { uuid: true, output_id: true, execution_index: true },
      order: { execution_index: 'DESC' },
      ...(limit !== undefined ? { take: limit } : {}),
    });
    if (!rows.length) return [];
    const outputs = await manager.findBy(StepOutputEntity, { uuid: In(rows.map((row) => row.output_id!)) });
    const byId = new Map(outputs.map((output) => [output.uuid, outputOf(output)]));
    return rows.reverse().map((row) => ({ index: row.execution_index ?? 0, output: byId.get(row.output_id!)! }));
  }
}

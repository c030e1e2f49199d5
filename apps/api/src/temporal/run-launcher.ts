// Starting and cancelling run workflows.
import { Injectable } from '@nestjs/common';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type PreparedRun } from '@app/contracts';
import { runSearchAttributes } from './search-attributes';
import { TemporalClient } from './temporal-client';

export abstract class RunLauncher {
  abstract start(run: PreparedRun): Promise<void>;
  abstract cancel(runUuid: string): Promise<void>;
}

@Injectable()
export class TemporalRunLauncher extends RunLauncher {
  constructor(private readonly temporal: TemporalClient) {
    super();
  }

  async start(run: PreparedRun): Promise<void> {
    const client = await this.temporal.get();
    const { name, uuid } = run.definition;
    try {
      await client.workflow.start(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(run.run_uuid),
        taskQueue: this.temporal.config.temporal.taskQueue,
        args: [{ ...run, heartbeat_timeout_seconds: this.temporal.config.temporal.heartbeatTimeoutSeconds }],
        staticSummary: `${name} — run ${run.run_uuid}`,
        memo: { run_uuid: run.run_uuid, workflow_uuid: uuid, workflow_name: name, user_id: run.user_id },
        typedSearchAttributes: runSearchAttributes({ run_uuid: run.run_uuid, workflow_uuid: uuid, workflow_name: name, user_id: run.user_id }),
      });
    } catch (error) {
      // A repeated start of the same run (a retried request) finds it running: that is success.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async cancel(runUuid: string): Promise<void> {
    await (await this.temporal.get()).workflow.getHandle(runWorkflowId(runUuid)).cancel();
  }
}

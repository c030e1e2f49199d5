// The API's only door to Temporal: start a run workflow, cancel one.
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { AppConfig } from '@app/config';
import { RUN_WORKFLOW_TYPE, runWorkflowId, type RunWorkflowInput, type SearchAttributeName } from '@app/contracts';

export interface LaunchMetadata {
  workflow_name: string;
}

export abstract class RunLauncher {
  abstract start(input: RunWorkflowInput, metadata: LaunchMetadata): Promise<void>;
  abstract cancel(runUuid: string): Promise<void>;
}

// Names checked against libs/contracts/src/search-attributes.json, which the bring-up registers.
const keyword = (name: SearchAttributeName) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
const keys = {
  run: keyword('StepwiseRunUuid'),
  workflow: keyword('StepwiseWorkflowUuid'),
  name: keyword('StepwiseWorkflowName'),
  user: keyword('StepwiseUserId'),
};

@Injectable()
export class TemporalRunLauncher extends RunLauncher implements OnApplicationShutdown {
  private client: Promise<Client> | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  /** Connects on first use, so the API serves definitions even while Temporal is still starting. */
  private connect(): Promise<Client> {
    this.client ??= Connection.connect({ address: this.config.temporal.address })
      .then((connection) => new Client({ connection, namespace: this.config.temporal.namespace }))
      .catch((error: unknown) => {
        this.client = null;
        throw error;
      });
    return this.client;
  }

  async start(input: RunWorkflowInput, metadata: LaunchMetadata): Promise<void> {
    const client = await this.connect();
    try {
      await client.workflow.start(RUN_WORKFLOW_TYPE, {
        workflowId: runWorkflowId(input.run_uuid),
        taskQueue: this.config.temporal.taskQueue,
        args: [input],
        staticSummary: `${metadata.workflow_name} — run ${input.run_uuid}`,
        memo: { run_uuid: input.run_uuid, workflow_uuid: input.definition.uuid, workflow_name: metadata.workflow_name, user_id: input.user_id },
        typedSearchAttributes: [
          { key: keys.run, value: input.run_uuid },
          { key: keys.workflow, value: input.definition.uuid },
          { key: keys.name, value: metadata.workflow_name.slice(0, 200) },
          { key: keys.user, value: input.user_id },
        ],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async cancel(runUuid: string): Promise<void> {
    await (await this.connect()).workflow.getHandle(runWorkflowId(runUuid)).cancel();
  }

  async onApplicationShutdown(): Promise<void> {
    const client = await this.client?.catch(() => null);
    await client?.connection.close();
  }
}

// A bare Temporal worker of the bench's own, on a task queue of its own, and how to run its workflows.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { AppConfig } from '@app/config';

export interface BareWorker {
  /** Runs the workflow once with `arg`, to completion. */
  execute(workflow: string, arg: number): () => Promise<void>;
  close(): Promise<void>;
}

export async function startBareWorker(config: AppConfig, workflowsPath: string, activities: object): Promise<BareWorker> {
  const taskQueue = `bench-bare-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath,
    activities,
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    execute: (workflow, arg) => async () => {
      await client.workflow.execute(workflow, { taskQueue, workflowId: `bare-${randomUUID()}`, args: [arg] });
    },
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

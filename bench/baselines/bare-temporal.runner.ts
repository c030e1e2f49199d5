import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { AppConfig } from '@app/config';
import { OpenAiModelClient } from '@app/providers';
import type { Runner } from '../support/runner';
import { createBareActivities } from './bare.activities';

export async function bareTemporalRunner(config: AppConfig, modelBaseUrl: string, toolUrl: string): Promise<Runner> {
  const taskQueue = `bench-bare-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath: require.resolve('./bare.workflow'),
    activities: createBareActivities(new OpenAiModelClient({ baseUrl: modelBaseUrl, apiKey: 'bench', timeoutMs: 60_000 }), toolUrl),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const execute = (workflow: string, arg: number) => async () => {
    await client.workflow.execute(workflow, { taskQueue, workflowId: `bare-${randomUUID()}`, args: [arg] });
  };
  return {
    name: 'bare Temporal',
    prepareChain: async (steps) => execute('bareChain', steps),
    prepareAgent: async (toolCalls) => execute('bareAgent', toolCalls),
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

// The floor baselines' runners, on one worker of their own: bare Temporal with local activities, and the
// like-for-like bare agent with ordinary activities (its one-step run is the ordinary bare chain) and with
// local ones (its one-step run is the local bare chain); and the local ones again with the least audit
// (two commits a call) on a worker of their own: the floor any durable audit stands on.
import type { AppConfig } from '@app/config';
import { OpenAiModelClient } from '@app/providers';
import type { Runner } from '../support/runner';
import { auditFloor } from './audited.activities';
import { createBareActivities } from './bare.activities';
import { createBareAgentActivities } from './bare-agent.activities';
import { startBareWorker } from './bare-worker';

export interface FloorRunners {
  local: Runner;
  agent: Runner;
  localAgent: Runner;
  /** Local activities, each call with its `running` row and its answer committed (its one-step run a chain). */
  auditedLocal: Runner;
  close(): Promise<void>;
}

export async function floorRunners(config: AppConfig, modelBaseUrl: string, toolUrl: string): Promise<FloorRunners> {
  const model = new OpenAiModelClient({ baseUrl: modelBaseUrl, apiKey: 'bench', timeoutMs: 60_000 });
  const activities = { ...createBareActivities(model, toolUrl), ...createBareAgentActivities(model, toolUrl) };
  const worker = await startBareWorker(config, require.resolve('./floor.workflow'), activities);
  const audit = await auditFloor(config.databaseUrl);
  const audited = await startBareWorker(config, require.resolve('./floor.workflow'), audit.wrap(activities));
  const notMeasured = () => Promise.reject(new Error('not measured on this baseline'));
  const idle = async () => {};
  return {
    local: {
      name: 'bare Temporal, local activities',
      prepareChain: async (steps) => worker.execute('bareLocalChain', steps),
      prepareAgent: notMeasured,
      close: idle,
    },
    agent: {
      name: 'bare Temporal agent',
      prepareChain: async (steps) => worker.execute('bareChain', steps),
      prepareAgent: async (toolCalls) => worker.execute('bareToolAgent', toolCalls),
      close: idle,
    },
    localAgent: {
      name: 'bare Temporal agent, local activities',
      prepareChain: async (steps) => worker.execute('bareLocalChain', steps),
      prepareAgent: async (toolCalls) => worker.execute('bareLocalToolAgent', toolCalls),
      close: idle,
    },
    auditedLocal: {
      name: 'bare Temporal, local activities, audited',
      prepareChain: async (steps) => audited.execute('bareLocalChain', steps),
      prepareAgent: async (toolCalls) => audited.execute('bareLocalToolAgent', toolCalls),
      close: idle,
    },
    async close() {
      await Promise.all([worker.close(), audited.close()]);
      await audit.close();
    },
  };
}

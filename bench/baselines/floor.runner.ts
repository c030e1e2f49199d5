// The floor baselines' runners, on one worker of their own: bare Temporal with local activities, and the
// like-for-like bare agent with ordinary activities (its one-step run is the ordinary bare chain) and with
// local ones (its one-step run is the local bare chain).
import type { AppConfig } from '@app/config';
import { OpenAiModelClient } from '@app/providers';
import type { Runner } from '../support/runner';
import { createBareActivities } from './bare.activities';
import { createBareAgentActivities } from './bare-agent.activities';
import { startBareWorker } from './bare-worker';

export interface FloorRunners {
  local: Runner;
  agent: Runner;
  localAgent: Runner;
  close(): Promise<void>;
}

export async function floorRunners(config: AppConfig, modelBaseUrl: string, toolUrl: string): Promise<FloorRunners> {
  const model = new OpenAiModelClient({ baseUrl: modelBaseUrl, apiKey: 'bench', timeoutMs: 60_000 });
  const activities = { ...createBareActivities(model, toolUrl), ...createBareAgentActivities(model, toolUrl) };
  const worker = await startBareWorker(config, require.resolve('./floor.workflow'), activities);
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
    close: () => worker.close(),
  };
}

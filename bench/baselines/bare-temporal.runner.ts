import type { AppConfig } from '@app/config';
import { OpenAiModelClient } from '@app/providers';
import type { Runner } from '../support/runner';
import { createBareActivities } from './bare.activities';
import { startBareWorker } from './bare-worker';

export async function bareTemporalRunner(config: AppConfig, modelBaseUrl: string, toolUrl: string): Promise<Runner> {
  const model = new OpenAiModelClient({ baseUrl: modelBaseUrl, apiKey: 'bench', timeoutMs: 60_000 });
  const worker = await startBareWorker(config, require.resolve('./bare.workflow'), createBareActivities(model, toolUrl));
  return {
    name: 'bare Temporal',
    prepareChain: async (steps) => worker.execute('bareChain', steps),
    prepareAgent: async (toolCalls) => worker.execute('bareAgent', toolCalls),
    close: () => worker.close(),
  };
}

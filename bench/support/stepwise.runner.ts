import { randomUUID } from 'node:crypto';
import { BENCH_MODEL, BENCH_TOOL, type Runner } from './runner';
import type { System } from './system';

const llmStep = (i: number) => ({ uuid: randomUUID(), type: 'custom_llm', name: `step ${i + 1}`, model: BENCH_MODEL, system_prompt: 'Summarise <<trigger_output>>' });

/** stepwise itself: POST /runs on the API, the run workflow on the worker, the audit in MySQL. */
export function stepwiseRunner(system: System, toolUrl: string): Runner {
  let toolRegistered = false;
  const runOnce = (workflowUuid: string) => async () => {
    const result = await system.waitForRun(await system.startRun(workflowUuid));
    if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
  };
  return {
    name: 'stepwise',
    async prepareChain(steps) {
      return runOnce(await system.createWorkflow(Array.from({ length: steps }, (_, i) => llmStep(i))));
    },
    async prepareAgent() {
      if (!toolRegistered) {
        await fetch(`${system.apiUrl}/tools`, {
          method: 'POST',
          headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: BENCH_TOOL, description: 'look up', parameters: { type: 'object' }, endpoint_url: toolUrl }),
        });
        toolRegistered = true;
      }
      return runOnce(await system.createWorkflow([{ type: 'custom_agent', name: 'agent', model: BENCH_MODEL, system_prompt: 'Use your tools', tools: [BENCH_TOOL], max_iterations: 11 }]));
    },
    close: async () => {},
  };
}

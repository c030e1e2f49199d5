import { randomUUID } from 'node:crypto';
import { BENCH_MODEL, BENCH_TOOL, type Runner } from './runner';
import type { System } from './system';

const llmStep = (i: number) => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name: `step ${i + 1}`,
  model: BENCH_MODEL,
  system_prompt: 'Summarise <<trigger_output>>',
});

const post = (system: System, route: string, body: unknown) =>
  fetch(`${system.apiUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * stepwise itself: POST /runs on the API, the run workflow on the worker, the audit in MySQL. Its agent
 * calls the bench's tool over HTTP, or, given `mcpUrl`, the `echo` tool of that MCP server.
 */
export function stepwiseRunner(system: System, toolUrl: string, mcpUrl?: string): Runner {
  let toolRegistered = false;
  const runOnce = (workflowUuid: string) => async () => {
    const result = await system.waitForRun(await system.startRun(workflowUuid));
    if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
  };
  return {
    name: mcpUrl ? 'stepwise (MCP tool)' : 'stepwise',
    async prepareChain(steps) {
      return runOnce(await system.createWorkflow(Array.from({ length: steps }, (_, i) => llmStep(i))));
    },
    async prepareAgent() {
      if (!toolRegistered) {
        await (mcpUrl
          ? post(system, '/mcp-servers', { name: 'bench', transport: 'streamable_http', url: mcpUrl })
          : post(system, '/tools', { name: BENCH_TOOL, description: 'look up', parameters: { type: 'object' }, endpoint_url: toolUrl }));
        toolRegistered = true;
      }
      const tools = [mcpUrl ? 'bench.echo' : BENCH_TOOL];
      return runOnce(
        await system.createWorkflow([
          { type: 'custom_agent', name: 'agent', model: BENCH_MODEL, system_prompt: 'Use your tools', tools, max_iterations: 11 },
        ]),
      );
    },
    close: async () => {},
  };
}

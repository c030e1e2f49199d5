// What several specs do on a stack of their own (API in-process, worker as a process): poll a run to its
// end, register a lookup tool, and run an agent that makes one call to a registered `lookup` tool.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from './api';
import { agentStep } from './factories';
import { reply, type ModelFake } from './model-fake';
import type { RunBody } from './stack';
import type { ToolServer } from './tool-server';

/** Polls GET /runs/{uuid} as `user` until the run no longer runs or waits. */
export async function runEnd(user: ApiClient, runUuid: string, timeoutMs = 60_000): Promise<RunBody> {
  let body = (await user.get(`/runs/${runUuid}`)).body;
  for (const deadline = Date.now() + timeoutMs; (body.status === 'running' || body.status === 'awaiting_input') && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    body = (await user.get(`/runs/${runUuid}`)).body;
  }
  return body;
}

/** Registers a tool of a name of its own (`tool_…`) taking `{ q: string }`, served at `endpointUrl`; returns the name. */
export async function registerLookupTool(user: ApiClient, endpointUrl: string): Promise<string> {
  const name = `tool_${randomUUID().slice(0, 8)}`;
  const created = await user.post('/tools', {
    name,
    description: 'looks things up',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    endpoint_url: endpointUrl,
    timeout_ms: 5000,
  });
  expect(created.status).toBe(201);
  return name;
}

/** An agent whose first turn calls `lookup` (11 prompt and 5 completion tokens) and whose second answers (20 and 3); returns the finished run. */
export async function runLookupAgent(user: ApiClient, model: ModelFake, tools: ToolServer): Promise<RunBody> {
  await user.post('/tools', { name: 'lookup', description: 'look up', parameters: { type: 'object' }, endpoint_url: tools.url('lookup') });
  const workflow = (await user.post('/workflows', { name: 'lookup agent', steps: [agentStep({ tools: ['lookup'] })] })).body;
  model.script(
    reply.toolCalls([{ name: 'lookup', arguments: { q: 'x' } }], { usage: { prompt_tokens: 11, completion_tokens: 5 } }),
    reply.json({ done: true }, { usage: { prompt_tokens: 20, completion_tokens: 3 } }),
  );
  return runEnd(user, (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: {} })).body.uuid);
}

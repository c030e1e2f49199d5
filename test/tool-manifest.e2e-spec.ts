// Tool manifests end to end: every save stores the agents' tools and their hash; a run compares them with
// the registry of the moment and, per the workflow's tool_drift, refuses to start or records the drift.
import { randomUUID } from 'node:crypto';
import { BUILTIN_TOOLS, manifestHash, type ToolManifest } from '../libs/domain/src';
import { agentStep, llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type RunBody, type Stack } from './support/stack';

const ENDPOINT = 'http://127.0.0.1:9/tool';
const oldParameters = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
const newParameters = {
  type: 'object',
  properties: { query: { type: 'string' }, limit: { type: 'integer' } },
  required: ['query', 'limit'],
};

describe('Tool manifests', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  const toolName = () => `search_${randomUUID().slice(0, 8)}`;

  async function registerTool(name: string, parameters: Record<string, unknown> = oldParameters): Promise<string> {
    const created = await stack.user.post('/tools', { name, description: 'Search the index', parameters, endpoint_url: ENDPOINT });
    expect(created.status).toBe(201);
    return created.body.uuid;
  }

  const createWorkflow = (tools: string[], fields?: Record<string, unknown>) => stack.createWorkflow([agentStep({ tools })], fields);

  /** Deletes the tool and registers it again with other parameters: the same name, a different contract. */
  async function changeTool(name: string, uuid: string): Promise<void> {
    expect((await stack.user.delete(`/tools/${uuid}`)).status).toBe(204);
    await registerTool(name, newParameters);
  }

  const runsOf = async (workflowUuid: string) => (await stack.user.get(`/runs?workflow_uuid=${workflowUuid}`)).body.items as RunBody[];

  it("saves the manifest of the agents' tools and its hash, and recomputes it on every save", async () => {
    const name = toolName();
    await registerTool(name);
    const later = toolName();
    const wf = await createWorkflow([name, 'http_request', later]);

    const httpRequest = BUILTIN_TOOLS.find((tool) => tool.name === 'http_request')!;
    const manifest: ToolManifest = [
      { name: 'http_request', description: httpRequest.description, parameters: httpRequest.parameters },
      { name, description: 'Search the index', parameters: oldParameters },
      { name: later, missing: true as const },
    ].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(wf).toMatchObject({ tool_drift: 'warn', tool_manifest: manifest, tool_manifest_hash: manifestHash(manifest) });
    for (const path of [`/workflows/${wf.uuid}`, `/workflows/${wf.uuid}/details`]) {
      expect((await stack.user.get(path)).body).toMatchObject({ tool_manifest: manifest, tool_manifest_hash: wf.tool_manifest_hash });
    }
    expect((await stack.user.get(`/workflows/${wf.uuid}/export`)).body.tool_manifest).toEqual(manifest);

    // A tool registered after the save shows in the manifest once the workflow is saved again (here: a step added).
    await registerTool(later);
    const added = await stack.user.post(`/workflows/${wf.uuid}/steps`, llmStep());
    expect(added.status).toBe(201);
    expect(added.body.tool_manifest.find((entry: RunBody) => entry.name === later)).toEqual({
      name: later,
      description: 'Search the index',
      parameters: oldParameters,
    });
    expect(added.body.tool_manifest_hash).not.toBe(wf.tool_manifest_hash);

    // A step edit that drops the tools empties it; an import recomputes it whatever the document says.
    const edited = await stack.user.patch(`/steps/${wf.steps[0].uuid}`, { tools: [] });
    expect(edited.status).toBe(200);
    const afterEdit = (await stack.user.get(`/workflows/${wf.uuid}`)).body;
    expect(afterEdit).toMatchObject({ tool_manifest: [], tool_manifest_hash: manifestHash([]) });
    const doc = (await stack.user.get(`/workflows/${wf.uuid}/export`)).body;
    doc.workflow.steps[0].tools = [name];
    doc.tool_manifest = [{ name, description: 'made up', parameters: {} }];
    const imported = await stack.user.post('/workflows/import', doc);
    expect(imported.status).toBe(200);
    expect(imported.body.tool_manifest).toEqual([{ name, description: 'Search the index', parameters: oldParameters }]);
  });

  it('refuses a run of a "fail" workflow whose tools changed, naming them, and writes nothing', async () => {
    const name = toolName();
    const uuid = await registerTool(name);
    const wf = await createWorkflow([name], { tool_drift: 'fail' });
    expect(wf.tool_drift).toBe('fail');

    expect((await stack.user.delete(`/tools/${uuid}`)).status).toBe(204);
    const removed = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} });
    expect(removed).toMatchObject({
      status: 409,
      body: { code: 'TOOL_DRIFT', details: { field: 'tool_drift', tools: [{ name, change: 'removed' }] } },
    });

    await registerTool(name, newParameters);
    const changed = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({
      code: 'TOOL_DRIFT',
      details: { tools: [{ name, change: 'changed', fields: ['parameters'] }], saved_hash: wf.tool_manifest_hash },
    });
    expect(changed.body.message).toContain(name);
    expect(await runsOf(wf.uuid)).toEqual([]);
    expect((await stack.user.get(`/workflows/${wf.uuid}`)).body.total_runs).toBe(0);
  });

  it('starts a run of a "warn" workflow and records the drift on it; saved again, the workflow has none', async () => {
    const name = toolName();
    const uuid = await registerTool(name);
    const wf = await createWorkflow([name]);
    await changeTool(name, uuid);

    stack.model.script(reply.text('done'));
    const started = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} });
    expect(started.status).toBe(201);
    const run = await stack.waitForRun(started.body.uuid);
    expect(run.status).toBe('completed');
    const currentManifest = [{ name, description: 'Search the index', parameters: newParameters }];
    const drift = {
      tools: [{ name, change: 'changed', fields: ['parameters'] }],
      saved_hash: wf.tool_manifest_hash,
      current_hash: manifestHash(currentManifest),
    };
    expect(run.tool_drift).toEqual(drift);
    expect((await runsOf(wf.uuid))[0].tool_drift).toEqual(drift);
    // The agent was offered the tool as registered now.
    expect(stack.model.requests[0].body.tools?.find((tool: RunBody) => tool.function.name === name)?.function.parameters).toEqual(
      newParameters,
    );

    const saved = await stack.user.patch(`/workflows/${wf.uuid}`, { description: 'accepts the new search' });
    expect(saved.body.tool_manifest_hash).toBe(drift.current_hash);
    stack.model.script(reply.text('done again'));
    const again = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: {} });
    expect(again.status).toBe(201);
    expect((await stack.waitForRun(again.body.uuid)).tool_drift).toBeNull();
  });
});

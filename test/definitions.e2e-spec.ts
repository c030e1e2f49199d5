// The definitions API over real HTTP and the real MySQL: every endpoint, every refusal, and that a
// refused request leaves the stored workflow exactly as it was.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '../apps/api/src/auth/api-key.service';
import { ApiClient, startApi, testConfig, type Reply, type TestApi } from './support/api';
import { agentStep, llmStep, stopChecker } from './support/factories';

describe('Workflow definitions API', () => {
  let api: TestApi;
  let alice: ApiClient;

  beforeAll(async () => {
    api = await startApi(testConfig({ bodyLimitBytes: 64 * 1024 }));
    alice = await api.newUser();
  });
  afterAll(() => api.close());

  async function createWorkflow(client: ApiClient = alice, body: Record<string, unknown> = {}) {
    const reply = await client.post('/workflows', { name: `wf-${randomUUID().slice(0, 6)}`, ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  }

  /** Asserts a refusal and that the workflow's stored definition did not change. */
  async function expectRefusedUnchanged(workflowUuid: string, request: () => Promise<Reply>, status: number, code: string, field?: string) {
    const before = (await alice.get(`/workflows/${workflowUuid}/details`)).body;
    const reply = await request();
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ code, ...(field ? { details: expect.objectContaining({ field }) } : {}) });
    expect(reply.body.request_id).toEqual(expect.any(String));
    const after = (await alice.get(`/workflows/${workflowUuid}/details`)).body;
    expect(after).toEqual(before);
  }

  describe('workflows', () => {
    it('creates a workflow with inline steps and trigger, and reads it three ways', async () => {
      const first = llmStep();
      const second = llmStep({ system_prompt: `Label <<step_output.${first.uuid}.summary>>` });
      const created = await createWorkflow(alice, {
        description: 'd',
        steps: [first, second],
        trigger: { type: 'manual', initial_data_description: 'an email' },
      });
      expect(created).toMatchObject({
        user_id: alice.userId,
        description: 'd',
        is_active: true,
        steps: [{ uuid: first.uuid }, { uuid: second.uuid }],
      });

      const model = await alice.get(`/workflows/${created.uuid}`);
      expect(model.body).toMatchObject({ uuid: created.uuid, steps: [first.uuid, second.uuid], trigger_uuid: created.trigger.uuid });
      const details = await alice.get(`/workflows/${created.uuid}/details`);
      expect(details.body.steps[1]).toMatchObject({
        name: second.name,
        system_prompt: second.system_prompt,
        model: 'test-model',
        description: '',
      });
      expect(details.body.trigger).toMatchObject({ type: 'manual', initial_data_description: 'an email', filter_rules: {} });

      const list = await alice.get('/workflows?limit=100');
      expect(list.body.items.map((w: { uuid: string }) => w.uuid)).toContain(created.uuid);
      expect(list.body).toMatchObject({ limit: 100, next_cursor: null, total: expect.any(Number) });
    });

    it('patches fields and deletes the workflow with its steps and trigger', async () => {
      const step = llmStep();
      const created = await createWorkflow(alice, { steps: [step], trigger: { type: 'webhook' } });
      const patched = await alice.patch(`/workflows/${created.uuid}`, { name: 'renamed', is_active: false });
      expect(patched.body).toMatchObject({ name: 'renamed', is_active: false });
      expect((await alice.delete(`/workflows/${created.uuid}`)).status).toBe(204);
      expect((await alice.get(`/workflows/${created.uuid}`)).status).toBe(404);
      expect((await alice.get(`/steps/${step.uuid}`)).status).toBe(404);
      expect((await alice.get(`/triggers/${created.trigger.uuid}`)).status).toBe(404);
    });

    it('refuses bad workflow bodies', async () => {
      expect((await alice.post('/workflows', { description: 'no name' })).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { field: 'name' },
      });
      expect((await alice.patch(`/workflows/${randomUUID()}`, { name: 'x' })).status).toBe(404);
      const created = await createWorkflow();
      await expectRefusedUnchanged(
        created.uuid,
        () => alice.patch(`/workflows/${created.uuid}`, { steps: [] }),
        422,
        'VALIDATION_FAILED',
        'steps',
      );
    });

    it.each([
      ['an unknown step type', () => [llmStep({ type: 'shell' })], 'UNKNOWN_STEP_TYPE', 'steps[0].type'],
      ['a missing model', () => [llmStep({ model: undefined })], 'VALIDATION_FAILED', 'steps[0].model'],
      ['a missing prompt', () => [agentStep({ system_prompt: undefined })], 'VALIDATION_FAILED', 'steps[0].system_prompt'],
      ['duplicate step names', () => [llmStep({ name: 'same' }), llmStep({ name: 'same' })], 'DUPLICATE_STEP_NAME', 'steps[1].name'],
      [
        'a placeholder to a missing step',
        () => [llmStep({ system_prompt: `<<step_output.${randomUUID()}>>` })],
        'UNKNOWN_STEP_REFERENCE',
        'steps[0].system_prompt',
      ],
      [
        'a placeholder to a later step',
        () => {
          const later = llmStep();
          return [llmStep({ system_prompt: `<<step_output.${later.uuid}>>` }), later];
        },
        'FORWARD_STEP_REFERENCE',
        'steps[0].system_prompt',
      ],
      [
        'a stop condition on an unknown step',
        () => [stopChecker(randomUUID())],
        'UNKNOWN_STEP_REFERENCE',
        'steps[0].stop_conditions[0].step_definition_uuid',
      ],
      [
        'a stop condition on a later step',
        () => {
          const later = llmStep();
          return [stopChecker(later.uuid), later];
        },
        'FORWARD_STEP_REFERENCE',
        'steps[0].stop_conditions[0].step_definition_uuid',
      ],
      [
        'an invalid JSONPath',
        () => {
          const s = llmStep();
          return [
            s,
            stopChecker(s.uuid, {
              stop_conditions: [{ step_definition_uuid: s.uuid, extraction_json_path: '$.a[', operator: 'equals', target_value: 1 }],
            }),
          ];
        },
        'INVALID_JSON_PATH',
        'steps[1].stop_conditions[0].extraction_json_path',
      ],
      [
        'an output_schema that is not JSON Schema',
        () => [llmStep({ output_schema: { type: 'nonsense' } })],
        'INVALID_OUTPUT_SCHEMA',
        'steps[0].output_schema',
      ],
    ])('refuses %s with nothing written', async (_case, steps, code, field) => {
      const name = `refused-${randomUUID()}`;
      const reply = await alice.post('/workflows', { name, steps: steps() });
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ code, details: { field } });
      const list = await alice.get('/workflows?limit=200');
      expect(list.body.items.map((w: { name: string }) => w.name)).not.toContain(name);
    });

    it('answers 400 to malformed JSON and 413 to a body over the limit', async () => {
      const malformed = await alice.call('POST', '/workflows', '{"name": "x",');
      expect(malformed).toMatchObject({ status: 400, body: { code: 'INVALID_BODY' } });
      const huge = await alice.post('/workflows', { name: 'big', description: 'x'.repeat(70 * 1024) });
      expect(huge).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
      const charset = await alice.call('POST', '/workflows', '{"name": "x"}', { 'content-type': 'application/json; charset=latin9' });
      expect(charset).toMatchObject({ status: 400, body: { code: 'INVALID_BODY', details: { field: 'body' } } });
      expect((await alice.get('/workflows?limit=200')).body.items.map((w: { name: string }) => w.name)).not.toContain('big');
    });

    it('pages the list newest first by cursor, unmoved by new workflows, and refuses bad paging', async () => {
      const carol = await api.newUser();
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await createWorkflow(carol, { name: `page-${i}` }));
      const first = await carol.get('/workflows?limit=2');
      expect(first.body).toMatchObject({ total: 3, limit: 2, next_cursor: expect.any(String) });
      expect(first.body.items.map((w: { name: string }) => w.name)).toEqual(['page-2', 'page-1']);
      expect(first.body.items[0]).toEqual((await carol.get(`/workflows/${made[2].uuid}`)).body);
      // A workflow made between two pages shows on neither: the next page goes on after the last row seen.
      await createWorkflow(carol, { name: 'page-3' });
      const second = await carol.get(`/workflows?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body).toMatchObject({ total: 4, limit: 2, next_cursor: null, items: [{ name: 'page-0' }] });
      expect((await carol.get('/workflows?limit=2&offset=3')).body.items.map((w: { name: string }) => w.name)).toEqual(['page-0']);
      expect(await carol.get('/workflows?limit=0')).toMatchObject({ status: 422, body: { details: { field: 'limit' } } });
      expect(await carol.get('/workflows?offset=-1')).toMatchObject({ status: 422, body: { details: { field: 'offset' } } });
      expect(await carol.get('/workflows?cursor=bm90LWEtY3Vyc29y')).toMatchObject({ status: 422, body: { details: { field: 'cursor' } } });
    });

    it('answers 404 for unknown uuids on every workflow route', async () => {
      const missing = randomUUID();
      const replies = await Promise.all([
        alice.get(`/workflows/${missing}`),
        alice.get(`/workflows/${missing}/details`),
        alice.get(`/workflows/${missing}/export`),
        alice.delete(`/workflows/${missing}`),
        alice.post(`/workflows/${missing}/steps`, llmStep()),
        alice.put(`/workflows/${missing}/steps/order`, { step_uuids: [] }),
        alice.put(`/workflows/${missing}/trigger`, { type: 'manual' }),
        alice.delete(`/workflows/${missing}/trigger`),
        alice.get(`/steps/${missing}`),
        alice.get(`/triggers/${missing}`),
        alice.patch(`/triggers/${missing}`, { initial_data_description: 'x' }),
        alice.get('/workflows/not-a-uuid'),
      ]);
      for (const reply of replies)
        expect(reply).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', request_id: expect.any(String) } });
    });

    it('refuses a workflow uuid that is already taken', async () => {
      const created = await createWorkflow();
      const reply = await alice.post('/workflows', { uuid: created.uuid, name: 'dup' });
      expect(reply).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: { field: 'uuid' } } });
      const step = llmStep();
      await createWorkflow(alice, { steps: [step] });
      const stepTaken = await alice.post('/workflows', { name: 'dup-step', steps: [step] });
      expect(stepTaken).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: { field: 'steps[0].uuid' } } });
    });

    it('lets one of several concurrent creates with the same uuid win, the others get 409', async () => {
      const uuid = randomUUID();
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) => alice.post('/workflows', { uuid, name: `race-${i}`, steps: [llmStep()] })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const reply of replies.filter((r) => r.status === 409)) expect(reply.body.code).toBe('CONFLICT');
    });
  });

  describe('steps', () => {
    it('adds steps at a position, edits, reorders and deletes them', async () => {
      const a = llmStep({ name: 'a' });
      const wf = await createWorkflow(alice, { steps: [a] });
      const added = await alice.post(`/workflows/${wf.uuid}/steps`, { ...llmStep({ name: 'b' }), uuid: undefined, position: 0 });
      expect(added.status).toBe(201);
      expect(added.body.steps.map((s: { name: string }) => s.name)).toEqual(['b', 'a']);
      const b = added.body.steps[0];

      const edited = await alice.patch(`/steps/${b.uuid}`, { system_prompt: 'New prompt', output_schema: { type: 'object' } });
      expect(edited.body).toMatchObject({ uuid: b.uuid, name: 'b', system_prompt: 'New prompt', output_schema: { type: 'object' } });
      expect((await alice.get(`/steps/${b.uuid}`)).body).toEqual(edited.body);

      const reordered = await alice.put(`/workflows/${wf.uuid}/steps/order`, { step_uuids: [a.uuid, b.uuid] });
      expect(reordered.body.steps.map((s: { name: string }) => s.name)).toEqual(['a', 'b']);

      const removed = await alice.delete(`/workflows/${wf.uuid}/steps/${a.uuid}`);
      expect(removed.body.steps.map((s: { name: string }) => s.name)).toEqual(['b']);
      expect((await alice.get(`/steps/${a.uuid}`)).status).toBe(404);
    });

    it('applies concurrent edits of one workflow one after another, losing none', async () => {
      const wf = await createWorkflow();
      const names = Array.from({ length: 8 }, (_, i) => `parallel-${i}`);
      const replies = await Promise.all(
        names.map((name) => alice.post(`/workflows/${wf.uuid}/steps`, { ...llmStep({ name }), uuid: undefined })),
      );
      expect(replies.map((r) => r.status)).toEqual(names.map(() => 201));
      const { steps } = (await alice.get(`/workflows/${wf.uuid}/details`)).body;
      expect(steps.map((s: { name: string }) => s.name).sort()).toEqual(names);
      const edits = await Promise.all(
        steps.map((s: { uuid: string }, i: number) => alice.patch(`/steps/${s.uuid}`, { description: `edited ${i}` })),
      );
      expect(edits.map((r) => r.status)).toEqual(steps.map(() => 200));
      const after = (await alice.get(`/workflows/${wf.uuid}/details`)).body.steps;
      expect(after.map((s: { description: string }) => s.description)).toEqual(steps.map((_: unknown, i: number) => `edited ${i}`));
    });

    it('refuses bad step edits with nothing written', async () => {
      const a = llmStep({ name: 'a' });
      const b = llmStep({ name: 'b', system_prompt: `Use <<step_output.${a.uuid}>>` });
      const wf = await createWorkflow(alice, { steps: [a, b] });
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.post(`/workflows/${wf.uuid}/steps`, llmStep({ name: 'A' })),
        422,
        'DUPLICATE_STEP_NAME',
      );
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.post(`/workflows/${wf.uuid}/steps`, { type: 'nope', name: 'x' }),
        422,
        'UNKNOWN_STEP_TYPE',
        'type',
      );
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.post(`/workflows/${wf.uuid}/steps`, { ...llmStep(), position: 9 }),
        422,
        'VALIDATION_FAILED',
        'position',
      );
      await expectRefusedUnchanged(wf.uuid, () => alice.patch(`/steps/${a.uuid}`, { model: '' }), 422, 'VALIDATION_FAILED', 'model');
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.patch(`/steps/${a.uuid}`, { type: 'custom_agent' }),
        422,
        'VALIDATION_FAILED',
        'type',
      );
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.patch(`/steps/${a.uuid}`, { system_prompt: `<<step_output.${b.uuid}>>` }),
        422,
        'FORWARD_STEP_REFERENCE',
      );
      // b refers to a: removing a, or putting b first, would break that reference.
      await expectRefusedUnchanged(wf.uuid, () => alice.delete(`/workflows/${wf.uuid}/steps/${a.uuid}`), 422, 'UNKNOWN_STEP_REFERENCE');
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.put(`/workflows/${wf.uuid}/steps/order`, { step_uuids: [b.uuid, a.uuid] }),
        422,
        'FORWARD_STEP_REFERENCE',
      );
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.put(`/workflows/${wf.uuid}/steps/order`, { step_uuids: [a.uuid] }),
        422,
        'NOT_A_PERMUTATION',
        'step_uuids',
      );
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.put(`/workflows/${wf.uuid}/steps/order`, { step_uuids: [a.uuid, a.uuid] }),
        422,
        'NOT_A_PERMUTATION',
        'step_uuids',
      );
      await expectRefusedUnchanged(wf.uuid, () => alice.delete(`/workflows/${wf.uuid}/steps/${randomUUID()}`), 404, 'NOT_FOUND');
      expect((await alice.patch(`/steps/${randomUUID()}`, { model: 'x' })).status).toBe(404);
    });
  });

  describe('triggers', () => {
    it('sets, reads, patches and removes the trigger', async () => {
      const wf = await createWorkflow();
      const rules = { all: [{ path: '$.type', operator: 'exists' }] };
      const set = await alice.put(`/workflows/${wf.uuid}/trigger`, {
        type: 'webhook',
        filter_rules: rules,
        initial_data_description: 'events',
      });
      expect(set.body.trigger).toMatchObject({ type: 'webhook', filter_rules: rules });
      const uuid = set.body.trigger.uuid;
      const again = await alice.put(`/workflows/${wf.uuid}/trigger`, { type: 'manual' });
      expect(again.body.trigger).toMatchObject({ uuid, type: 'manual' });
      expect((await alice.get(`/triggers/${uuid}`)).body).toMatchObject({ uuid, workflow_uuid: wf.uuid });
      expect((await alice.patch(`/triggers/${uuid}`, { initial_data_description: 'x' })).body).toMatchObject({
        uuid,
        initial_data_description: 'x',
      });
      await expectRefusedUnchanged(
        wf.uuid,
        () => alice.patch(`/triggers/${uuid}`, { type: 'carrier-pigeon' }),
        422,
        'UNKNOWN_TRIGGER_TYPE',
        'type',
      );
      expect((await alice.delete(`/workflows/${wf.uuid}/trigger`)).body.trigger).toBeNull();
      expect((await alice.delete(`/workflows/${wf.uuid}/trigger`)).status).toBe(404);
      expect((await alice.get(`/triggers/${uuid}`)).status).toBe(404);
    });
  });

  describe('catalog', () => {
    it('lists step and trigger types with their field schemas', async () => {
      const steps = await alice.get('/step-types');
      expect(steps.body.map((t: { type: string }) => t.type)).toEqual([
        'custom_llm',
        'custom_agent',
        'stop_checker',
        'tool_executor',
        'human_input',
        'sub_workflow',
      ]);
      expect(steps.body[0].schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['model', 'system_prompt']) });
      expect(steps.body.find((t: { type: string }) => t.type === 'human_input').schema).toMatchObject({
        required: ['name', 'prompt'],
        properties: { input_schema: { type: ['object', 'null'] }, timeout_seconds: { minimum: 1 } },
      });
      const triggers = await alice.get('/trigger-types');
      expect(triggers.body.map((t: { type: string }) => t.type)).toEqual(['manual', 'webhook', 'schedule']);
    });
  });

  describe('export and import', () => {
    it('round-trips a workflow, creates without uuids and upserts with them', async () => {
      const a = llmStep();
      const wf = await createWorkflow(alice, { steps: [a, stopChecker(a.uuid)], trigger: { type: 'manual' } });
      const exported = (await alice.get(`/workflows/${wf.uuid}/export`)).body;
      expect(exported).toMatchObject({ format: 'stepwise.workflow/v1', workflow: { uuid: wf.uuid, steps: [{ uuid: a.uuid }, {}] } });

      exported.workflow.name = 'updated by import';
      exported.workflow.steps[0].system_prompt = 'changed';
      const upserted = await alice.post('/workflows/import', exported);
      expect(upserted.status).toBe(200);
      expect((await alice.get(`/workflows/${wf.uuid}/export`)).body).toEqual(exported);

      const fresh = await alice.post('/workflows/import', {
        format: 'stepwise.workflow/v1',
        workflow: { name: 'new', steps: [{ ...llmStep(), uuid: undefined }] },
      });
      expect(fresh.status).toBe(201);
      expect(fresh.body.uuid).not.toBe(wf.uuid);
    });

    it('refuses documents that do not parse, with nothing written', async () => {
      expect((await alice.post('/workflows/import', { workflow: {} })).body).toMatchObject({
        code: 'IMPORT_UNPARSEABLE',
        details: { field: 'format' },
      });
      expect((await alice.post('/workflows/import', [1, 2])).body).toMatchObject({ code: 'IMPORT_UNPARSEABLE' });
      const wf = await createWorkflow(alice, { steps: [llmStep()] });
      const doc = (await alice.get(`/workflows/${wf.uuid}/export`)).body;
      doc.workflow.steps.push(llmStep({ type: 'bogus' }));
      await expectRefusedUnchanged(wf.uuid, () => alice.post('/workflows/import', doc), 422, 'UNKNOWN_STEP_TYPE', 'workflow.steps[1].type');
    });
  });

  describe('authentication and isolation', () => {
    it('answers 401 without a key, with an unknown key and with a revoked key', async () => {
      expect((await api.anonymous().get('/workflows')).body).toMatchObject({ code: 'UNAUTHORIZED' });
      expect((await new ApiClient(api.baseUrl, 'sk_nope', 'x').get('/workflows')).status).toBe(401);
      const keys = api.app.get(ApiKeyService);
      const { key, record } = await keys.create('temp-user', 'temp');
      const client = new ApiClient(api.baseUrl, key, 'temp-user');
      expect((await client.get('/workflows')).status).toBe(200);
      await keys.revoke(record.uuid);
      expect((await client.get('/workflows')).body).toMatchObject({ code: 'UNAUTHORIZED' });
    });

    it('keeps health and the OpenAPI page public, and documents the request bodies', async () => {
      expect((await api.anonymous().get('/health/live')).body).toEqual({ status: 'ok' });
      expect((await api.anonymous().get('/health/ready')).body).toMatchObject({ checks: { database: 'ok', temporal: 'ok' } });
      const docs = await fetch(api.baseUrl.replace('/api/v1', '/api/docs'));
      expect(docs.status).toBe(200);
      type Operation = { requestBody?: { content: Record<string, { schema: unknown }> } };
      const spec = (await (await fetch(api.baseUrl.replace('/api/v1', '/api/docs-json'))).json()) as {
        paths: Record<string, Record<string, Operation>>;
        components: { schemas: object };
      };
      for (const [path, method] of [
        ['/api/v1/workflows', 'post'],
        ['/api/v1/workflows/{uuid}', 'patch'],
        ['/api/v1/workflows/import', 'post'],
        ['/api/v1/workflows/{uuid}/steps', 'post'],
        ['/api/v1/workflows/{uuid}/steps/order', 'put'],
        ['/api/v1/steps/{stepUuid}', 'patch'],
        ['/api/v1/workflows/{uuid}/trigger', 'put'],
        ['/api/v1/triggers/{triggerUuid}', 'patch'],
      ]) {
        expect([path, method, spec.paths[path][method].requestBody?.content['application/json'].schema]).toEqual([
          path,
          method,
          expect.any(Object),
        ]);
      }
      expect(Object.keys(spec.components.schemas)).toEqual(
        expect.arrayContaining(['CustomLlmStep', 'CustomAgentStep', 'StopCheckerStep', 'Trigger', 'WorkflowWithDetails', 'Error']),
      );
    });

    it('answers 503 from health when the database is gone', async () => {
      const other = await startApi();
      try {
        await other.app.get(DataSource).destroy();
        expect(await other.anonymous().get('/health')).toMatchObject({
          status: 503,
          body: { status: 'unavailable', checks: { database: expect.stringMatching(/^unavailable/) } },
        });
      } finally {
        await other.close();
      }
    });

    it("never shows one user another user's workflows", async () => {
      const bob = await api.newUser();
      const a = llmStep();
      const wf = await createWorkflow(alice, { steps: [a], trigger: { type: 'manual' } });
      const paths = [
        `/workflows/${wf.uuid}`,
        `/workflows/${wf.uuid}/details`,
        `/workflows/${wf.uuid}/export`,
        `/steps/${a.uuid}`,
        `/triggers/${wf.trigger.uuid}`,
      ];
      for (const path of paths) expect((await bob.get(path)).body).toMatchObject({ code: 'NOT_FOUND' });
      expect((await bob.get('/workflows')).body.items).toEqual([]);
      expect((await bob.patch(`/workflows/${wf.uuid}`, { name: 'mine' })).status).toBe(404);
      expect((await bob.delete(`/workflows/${wf.uuid}`)).status).toBe(404);
      expect((await bob.post(`/workflows/${wf.uuid}/steps`, llmStep())).status).toBe(404);
      expect((await bob.patch(`/steps/${a.uuid}`, { model: 'x' })).status).toBe(404);
      expect((await bob.put(`/workflows/${wf.uuid}/trigger`, { type: 'manual' })).status).toBe(404);
      expect((await bob.delete(`/workflows/${wf.uuid}/trigger`)).status).toBe(404);
      expect((await bob.patch(`/triggers/${wf.trigger.uuid}`, { initial_data_description: 'mine' })).status).toBe(404);
      expect((await bob.delete(`/workflows/${wf.uuid}/steps/${a.uuid}`)).status).toBe(404);
      expect((await bob.put(`/workflows/${wf.uuid}/steps/order`, { step_uuids: [a.uuid] })).status).toBe(404);
      const doc = (await alice.get(`/workflows/${wf.uuid}/export`)).body;
      expect((await bob.post('/workflows/import', doc)).status).toBe(409);
      // Bob's own workflow cannot take Alice's step either, by import or by adding it.
      const bobs = await createWorkflow(bob);
      expect((await bob.post('/workflows/import', { ...doc, workflow: { ...doc.workflow, uuid: bobs.uuid } })).status).toBe(409);
      expect((await bob.post(`/workflows/${bobs.uuid}/steps`, { ...doc.workflow.steps[0], name: 'taken' })).status).toBe(409);
      expect((await bob.get(`/workflows/${bobs.uuid}/details`)).body.steps).toEqual([]);
      expect((await alice.get(`/workflows/${wf.uuid}/export`)).body).toEqual(doc);
    });
  });
});

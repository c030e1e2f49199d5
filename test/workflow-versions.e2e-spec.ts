// Definition versions through REST: every save that changes a workflow is a version, listed, compared and
// restored; a run records the version it ran; another user sees none of them.
import { llmStep } from './support/factories';
import { useStack, type Stack } from './support/stack';

describe('Workflow versions', () => {
  let stack: Stack;

  useStack((started) => (stack = started));

  it('makes a version of each save that changes the workflow, diffs two, restores one, and a run records the one it ran', async () => {
    const first = llmStep({ name: 'summarise' });
    const wf = await stack.createWorkflow([first]);
    const user = stack.user;
    const versions = `/workflows/${wf.uuid}/versions`;
    expect(wf).toMatchObject({ version: 1 });

    expect((await user.patch(`/workflows/${wf.uuid}`, { name: `${wf.name} v2` })).body).toMatchObject({ version: 2 });
    const second = llmStep({ name: 'label', system_prompt: `Label <<step_output.${first.uuid}>>` });
    expect((await user.post(`/workflows/${wf.uuid}/steps`, second)).status).toBe(201);
    // A save that changes nothing makes no version.
    expect((await user.patch(`/workflows/${wf.uuid}`, { name: `${wf.name} v2` })).body).toMatchObject({ version: 3 });

    const listed = await user.get(`${versions}?limit=2`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 3, limit: 2, next_cursor: '2' });
    expect(listed.body.items.map((v: { version: number; is_current: boolean }) => [v.version, v.is_current])).toEqual([
      [3, true],
      [2, false],
    ]);
    expect(listed.body.items[0]).toMatchObject({ created_by: user.userId, content_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await user.get(`${versions}?cursor=${listed.body.next_cursor}`)).body.items.map((v: { version: number }) => v.version)).toEqual(
      [1],
    );

    const diff = await user.get(`${versions}/1/diff/3`);
    expect(diff).toMatchObject({
      status: 200,
      body: {
        from: 1,
        to: 3,
        workflow_fields: [{ field: 'name', before: wf.name, after: `${wf.name} v2` }],
        steps_added: [{ uuid: second.uuid, name: 'label', type: 'custom_llm' }],
        steps_removed: [],
        steps_changed: [],
      },
    });

    const run = await stack.user.post(`/workflows/${wf.uuid}/runs`, { trigger_output: { text: 'hi' }, dry_run: true });
    expect(run.body).toMatchObject({ workflow_version: 3 });
    expect(await stack.waitForRun(run.body.uuid)).toMatchObject({ status: 'completed', workflow_version: 3 });

    const restored = await user.post(`${versions}/1/restore`, {});
    expect(restored).toMatchObject({ status: 200, body: { restored_from: 1, version: 4, workflow: { name: wf.name, version: 4 } } });
    expect(restored.body.workflow.steps.map((step: { uuid: string }) => step.uuid)).toEqual([first.uuid]);
    const fourth = await user.get(`${versions}/4`);
    expect(fourth.body).toMatchObject({ version: 4, is_current: true, change_description: 'restored from version 1' });
    expect(fourth.body.content_hash).toBe((await user.get(`${versions}/1`)).body.content_hash);
    expect((await user.get(`${versions}/1/diff/4`)).body).toMatchObject({
      workflow_fields: [],
      steps_added: [],
      steps_removed: [],
      steps_changed: [],
    });

    // A document is one version: export writes none, and importing it back changes nothing.
    const exported = await user.get(`/workflows/${wf.uuid}/export`);
    expect(exported.body.workflow).not.toHaveProperty('version');
    expect((await user.post('/workflows/import', exported.body)).body).toMatchObject({ version: 4 });

    expect((await user.get(`${versions}/x`)).body).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'version' } });
    expect((await user.get(`${versions}/9`)).status).toBe(404);

    const other = await stack.api.newUser();
    for (const reply of [
      await other.get(versions),
      await other.get(`${versions}/1`),
      await other.get(`${versions}/1/diff/2`),
      await other.post(`${versions}/1/restore`, {}),
    ])
      expect(reply).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect((await user.get(`/workflows/${wf.uuid}`)).body).toMatchObject({ version: 4 });
  });
});

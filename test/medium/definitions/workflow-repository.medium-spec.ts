import { randomUUID } from 'node:crypto';
import type { WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode, type SavedToolManifest } from '@app/domain';
import { TypeormWorkflowRepository, TypeormWorkflowVersionRepository, WorkflowRepository, type ManifestOf } from '@app/persistence';
import { llmStep, newUserId, noTools, workflowDefinition } from '../support/fixtures';
import { setUpWorkflowRepository } from './workflow-repository.setup';

describe(WorkflowRepository.name, () => {
  let setup: Awaited<ReturnType<typeof setUpWorkflowRepository>>;
  let sut: WorkflowRepository;
  const secret = 'sealed-secret';

  beforeAll(async () => {
    setup = await setUpWorkflowRepository();
    sut = setup.sut;
  });
  afterAll(() => setup.close());

  it('stores a new workflow whole, with its manifest and zeroed counters, and finds it again', async () => {
    const userId = newUserId();
    const definition = workflowDefinition([llmStep(), llmStep({ output_schema: { type: 'object' } })]);

    const created = await sut.create(userId, definition, secret, noTools);
    const found = await sut.find(userId, definition.uuid);

    expect(created).toMatchObject({
      ...definition,
      user_id: userId,
      notify_secret: secret,
      tool_manifest: [],
      tool_manifest_hash: 'medium-no-tools',
    });
    expect(created).toMatchObject({ total_runs: 0, successful_runs: 0, failed_runs: 0 });
    expect(found).toEqual(created);
    expect(await sut.findWorkflowOfStep(userId, definition.steps[1].uuid)).toBe(definition.uuid);
    expect(await sut.findWorkflowOfTrigger(userId, definition.trigger!.uuid)).toBe(definition.uuid);
  });

  it('finds a workflow whose step rows are not those its row lists (a save between its reads) as one snapshot shows it', async () => {
    const userId = newUserId();
    const definition = workflowDefinition([llmStep({ name: 'kept' }), llmStep({ name: 'gone' })]);
    await sut.create(userId, definition, secret, noTools);
    // As a save replacing the steps would leave it between the row's read and the steps' read.
    await setup.db.query('DELETE FROM workflow_steps WHERE uuid = ?', [definition.steps[1].uuid]);

    const found = await sut.find(userId, definition.uuid);

    expect(found?.steps.map((step) => step.name)).toEqual(['kept']);
    expect(await sut.find(newUserId(), definition.uuid)).toBeNull();
  });

  it("refuses a second workflow under a uuid already taken, as a conflict (another user's: identities.medium-spec)", async () => {
    const [userId, definition] = [newUserId(), workflowDefinition()];
    await sut.create(userId, definition, secret, noTools);

    const again = sut.create(userId, { ...definition, steps: [llmStep()], trigger: null }, secret, noTools);

    await expect(again).rejects.toMatchObject({ code: ErrorCode.Conflict });
    await expect(again).rejects.toBeInstanceOf(DomainError);
  });

  it('updates the definition in place: steps renamed and reordered, the trigger replaced, updated_at moved on', async () => {
    const userId = newUserId();
    const [first, second] = [llmStep({ name: 'first' }), llmStep({ name: 'second' })];
    const created = await sut.create(userId, workflowDefinition([first, second]), secret, noTools);
    const trigger = { uuid: randomUUID(), type: 'webhook' as const, filter_rules: {}, initial_data_description: 'a hook' };

    const swapped = (current: WorkflowDefinition): WorkflowDefinition => ({
      ...current,
      name: 'renamed',
      steps: [
        { ...second, name: 'first' },
        { ...first, name: 'second' },
      ],
      trigger,
    });
    const updated = await sut.mutate(userId, created.uuid, swapped, noTools);

    expect(updated).toMatchObject({
      name: 'renamed',
      trigger,
      steps: [
        { uuid: second.uuid, name: 'first' },
        { uuid: first.uuid, name: 'second' },
      ],
    });
    expect(updated!.updated_at.getTime()).toBeGreaterThanOrEqual(created.updated_at.getTime());
    expect(await sut.findWorkflowOfTrigger(userId, created.trigger!.uuid)).toBeNull();
    expect(await sut.find(userId, created.uuid)).toEqual(updated);
  });

  it('writes nothing when the change throws', async () => {
    const userId = newUserId();
    const created = await sut.create(userId, workflowDefinition(), secret, noTools);

    const failing = sut.mutate(
      userId,
      created.uuid,
      () => {
        throw new DomainError(ErrorCode.ValidationFailed, 'no', {});
      },
      noTools,
    );

    await expect(failing).rejects.toMatchObject({ code: ErrorCode.ValidationFailed });
    expect(await sut.find(userId, created.uuid)).toEqual(created);
  });

  it("keeps users apart: another user's workflow is not found, changed, deleted or listed", async () => {
    const [owner, stranger] = [newUserId(), newUserId()];
    const created = await sut.create(owner, workflowDefinition(), secret, noTools);

    expect(await sut.find(stranger, created.uuid)).toBeNull();
    expect(await sut.mutate(stranger, created.uuid, (current) => ({ ...current, name: 'stolen' }), noTools)).toBeNull();
    expect(await sut.delete(stranger, created.uuid)).toBe(false);
    expect(await sut.setNotifySecret(stranger, created.uuid, 'other')).toBe(false);
    expect(await sut.findWorkflowOfStep(stranger, created.steps[0].uuid)).toBeNull();
    expect(await sut.findSteps(stranger, { uuids: [created.steps[0].uuid] })).toEqual([]);
    expect(await sut.list(stranger, { limit: 10 })).toMatchObject({ items: [], total: 0 });
    expect(await sut.ownerOfUuid(created.steps[0].uuid)).toBe(owner);
    expect(await sut.find(owner, created.uuid)).toEqual(created);
  });

  it('deletes a workflow with its steps and trigger', async () => {
    const userId = newUserId();
    const created = await sut.create(userId, workflowDefinition(), secret, noTools);

    expect(await sut.delete(userId, created.uuid)).toBe(true);

    expect(await sut.find(userId, created.uuid)).toBeNull();
    expect(await sut.ownerOfUuid(created.steps[0].uuid)).toBeNull();
    expect(await sut.ownerOfUuid(created.trigger!.uuid)).toBeNull();
    expect(await sut.delete(userId, created.uuid)).toBe(false);
  });

  it("lists a user's workflows newest first, page by page, each once", async () => {
    const userId = newUserId();
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) uuids.push((await sut.create(userId, workflowDefinition(), secret, noTools)).uuid);

    const first = await sut.list(userId, { limit: 2 });
    const second = await sut.list(userId, { limit: 2, cursor: first.next_cursor! });
    const last = await sut.list(userId, { limit: 2, cursor: second.next_cursor! });

    const listed = [...first.items, ...second.items, ...last.items];
    const times = listed.map((item) => item.created_at.getTime());
    expect([first.total, second.total, last.total]).toEqual([5, 5, 5]);
    expect(listed.map((item) => item.uuid).sort()).toEqual([...uuids].sort());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(last.next_cursor).toBeNull();
    expect(first.items[0].steps).toEqual([expect.any(String)]);
  });

  // A save meets its tool manifest (which may ask MCP servers over the network) before its transaction: no
  // row lock waits on it, and an edit another save overtook meanwhile is computed again on top of that save.
  const manifest = (hash: string): SavedToolManifest => ({ tool_manifest: [], tool_manifest_hash: hash });
  const namesOf = (definition: WorkflowDefinition) => definition.steps.map((step) => step.name);

  it('holds no lock on the workflow row while the manifest of an edit is computed', async () => {
    const userId = newUserId();
    const created = await sut.create(userId, workflowDefinition(), secret, async () => manifest('first'));
    // What another request could do meanwhile: lock the row, giving up at once if it cannot.
    const lockingTheRow: ManifestOf = async () => {
      await setup.db.transaction((manager) => manager.query('SELECT uuid FROM workflows WHERE uuid = ? FOR UPDATE NOWAIT', [created.uuid]));
      return manifest('second');
    };

    const edited = await sut.mutate(userId, created.uuid, (current) => ({ ...current, description: 'edited' }), lockingTheRow);

    expect(edited).toMatchObject({ description: 'edited', tool_manifest_hash: 'second' });
  });

  it('computes an edit again, manifest included, on top of a save that landed while its manifest was computed', async () => {
    const userId = newUserId();
    const created = await sut.create(userId, workflowDefinition([llmStep({ name: 'a' })]), secret, async () => manifest('first'));
    const seenBy: string[][] = [];
    let overtaken = false;
    const overtakenOnce: ManifestOf = async (next) => {
      if (!overtaken) {
        overtaken = true;
        await sut.mutate(
          userId,
          created.uuid,
          (current) => ({ ...current, steps: [...current.steps, llmStep({ name: 'b' })] }),
          async () => manifest('other'),
        );
      }
      return manifest(namesOf(next).join('+'));
    };
    const addC = (current: WorkflowDefinition) => {
      seenBy.push(namesOf(current));
      return { ...current, steps: [...current.steps, llmStep({ name: 'c' })] };
    };

    const edited = await sut.mutate(userId, created.uuid, addC, overtakenOnce);

    expect(seenBy).toEqual([['a'], ['a', 'b']]);
    expect(edited).toMatchObject({ steps: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], tool_manifest_hash: 'a+b+c' });
  });

  it('writes a version with each save that changes the definition, none for one that does not, and keeps the latest WORKFLOW_VERSIONS_KEPT', async () => {
    const userId = newUserId();
    const keepingTwo = new TypeormWorkflowRepository(setup.db, 2);
    const versions = new TypeormWorkflowVersionRepository(setup.db);
    const created = await keepingTwo.create(userId, workflowDefinition([llmStep({ name: 'a' })]), secret, noTools, {
      change_description: 'first',
    });
    const rename = (name: string) => (current: WorkflowDefinition) => ({ ...current, name });

    expect((await keepingTwo.mutate(userId, created.uuid, rename('two'), noTools))!.version).toBe(2);
    expect((await keepingTwo.mutate(userId, created.uuid, rename('two'), noTools))!.version).toBe(2);
    expect((await keepingTwo.mutate(userId, created.uuid, rename('three'), noTools))!.version).toBe(3);

    const listed = await versions.list(userId, created.uuid, { limit: 10 });
    expect(listed.items.map((version) => [version.version, version.change_description])).toEqual([
      [3, null],
      [2, null],
    ]);
    expect(await versions.find(userId, created.uuid, 1)).toBeNull();
    expect((await versions.find(userId, created.uuid, 3))!.definition).toMatchObject({ name: 'three', steps: [{ name: 'a' }] });
    expect(await versions.find(newUserId(), created.uuid, 3)).toBeNull();
  });
});

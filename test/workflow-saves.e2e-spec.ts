// How a workflow save meets its tool manifest, against the real MySQL: the manifest (which may ask MCP
// servers over the network) is computed before the save's transaction, so no row lock waits on it, and an
// edit another save overtook meanwhile is computed again on top of that save.
import { randomUUID } from 'node:crypto';
import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import { parseWorkflowInput, type SavedToolManifest } from '@app/domain';
import { createDataSource, TypeormWorkflowRepository, type ManifestOf } from '@app/persistence';
import type { DataSource } from 'typeorm';
import { llmStep } from './support/factories';

/** A workflow with these steps and every other field at its default. */
const definition = (steps: StepDefinition[]): WorkflowDefinition => ({ ...parseWorkflowInput({ name: `saves-${randomUUID().slice(0, 8)}`, steps }, randomUUID), uuid: randomUUID() });

const manifest = (hash: string): SavedToolManifest => ({ tool_manifest: [], tool_manifest_hash: hash });
const step = (name: string) => llmStep({ name }) as unknown as StepDefinition;

describe(TypeormWorkflowRepository.name, () => {
  let dataSource: DataSource;
  let sut: TypeormWorkflowRepository;
  const userId = `user-${randomUUID()}`;

  beforeAll(async () => {
    dataSource = await createDataSource(process.env.DATABASE_URL!).initialize();
    sut = new TypeormWorkflowRepository(dataSource);
  });
  afterAll(() => dataSource.destroy());

  /** What another request could do while the manifest is computed: lock the row, giving up at once if it cannot. */
  const lockRowNow = (uuid: string) => dataSource.transaction((manager) => manager.query('SELECT uuid FROM workflows WHERE uuid = ? FOR UPDATE NOWAIT', [uuid]));

  it('holds no lock on the workflow row while the manifest of an edit is computed', async () => {
    const created = await sut.create(userId, definition([step('a')]), 'secret', async () => manifest('first'));
    const manifestOf: ManifestOf = async () => {
      await lockRowNow(created.uuid);
      return manifest('second');
    };

    const edited = await sut.mutate(userId, created.uuid, (current) => ({ ...current, description: 'edited' }), manifestOf);

    expect(edited).toMatchObject({ description: 'edited', tool_manifest_hash: 'second' });
  });

  it('computes an edit again, manifest included, on top of a save that landed while its manifest was computed', async () => {
    const created = await sut.create(userId, definition([step('a')]), 'secret', async () => manifest('first'));
    const seenBy: string[][] = [];
    let overtaken = false;
    const manifestOf: ManifestOf = async (next) => {
      if (!overtaken) {
        overtaken = true;
        await sut.mutate(userId, created.uuid, (current) => ({ ...current, steps: [...current.steps, step('b')] }), async () => manifest('other'));
      }
      return manifest(next.steps.map((s) => s.name).join('+'));
    };
    const addC = (current: WorkflowDefinition) => {
      seenBy.push(current.steps.map((s) => s.name));
      return { ...current, steps: [...current.steps, step('c')] };
    };

    const edited = await sut.mutate(userId, created.uuid, addC, manifestOf);

    expect(seenBy).toEqual([['a'], ['a', 'b']]);
    expect(edited?.steps.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(edited?.tool_manifest_hash).toBe('a+b+c');
  });
});

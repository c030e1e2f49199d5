import type { StepDefinition } from '@app/contracts';
import {
  BUILTIN_TOOL_NAMES,
  BUILTIN_TOOLS,
  buildToolManifest,
  checkToolDrift,
  manifestHash,
  toolNamesOf,
  type SavedToolManifest,
  type ToolDrift,
  type ToolManifest,
} from '@app/domain';
import type { WorkflowRecord } from '../definitions/workflow.repository';
import type { ToolRepository } from './tool.repository';

/** Tool manifests against the registry as it is now: computed when a workflow is saved, compared when a run starts. */
export class ToolManifestService {
  constructor(private readonly tools: ToolRepository) {}

  /** The agents' tools of `steps` from the built-ins and the user's registry; names neither knows are `missing`. */
  async current(userId: string, steps: readonly StepDefinition[]): Promise<ToolManifest> {
    const names = toolNamesOf(steps);
    const registered = await this.tools.findByNames(userId, names.filter((name) => !BUILTIN_TOOL_NAMES.includes(name)));
    return buildToolManifest(names, [...BUILTIN_TOOLS, ...registered]);
  }

  /** What a save stores: the manifest and its hash. */
  async forSave(userId: string, steps: readonly StepDefinition[]): Promise<SavedToolManifest> {
    const tool_manifest = await this.current(userId, steps);
    return { tool_manifest, tool_manifest_hash: manifestHash(tool_manifest) };
  }

  /** At run start: the drift since the workflow was saved, or null; throws TOOL_DRIFT when its policy is "fail". */
  async driftOf(record: WorkflowRecord): Promise<ToolDrift | null> {
    const saved = record.tool_manifest && record.tool_manifest_hash ? { tool_manifest: record.tool_manifest, tool_manifest_hash: record.tool_manifest_hash } : null;
    return checkToolDrift(record.tool_drift, saved, saved ? await this.current(record.user_id, record.steps) : []);
  }
}

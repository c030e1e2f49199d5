import type { StepDefinition } from '@app/contracts';
import {
  BUILTIN_TOOL_NAMES,
  BUILTIN_TOOLS,
  buildToolManifest,
  checkToolDrift,
  manifestHash,
  parseMcpToolName,
  toolNamesOf,
  type SavedToolManifest,
  type ToolDrift,
  type ToolManifest,
} from '@app/domain';
import type { McpToolCatalog, ToolRepository, WorkflowRecord } from '@app/persistence';

/**
 * Tool manifests against the registry and the MCP servers as they are now: computed when a workflow is
 * saved, compared when a run starts. MCP tools are listed live from their servers.
 */
export class ToolManifestService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly mcpTools: McpToolCatalog,
  ) {}

  /** The agents' tools of `steps` from the built-ins, the user's registry and MCP servers; names none knows are `missing`. */
  async current(userId: string, steps: readonly StepDefinition[]): Promise<ToolManifest> {
    const names = toolNamesOf(steps);
    const [registered, mcp] = await Promise.all([
      this.tools.findByNames(
        userId,
        names.filter((name) => !BUILTIN_TOOL_NAMES.includes(name) && !parseMcpToolName(name)),
      ),
      this.mcpTools.specsOf(userId, names),
    ]);
    return buildToolManifest(names, [...BUILTIN_TOOLS, ...registered, ...mcp]);
  }

  /** What a save stores: the manifest and its hash. A step naming an MCP server the user does not have is refused. */
  async forSave(userId: string, steps: readonly StepDefinition[]): Promise<SavedToolManifest> {
    await this.mcpTools.assertServersKnown(userId, steps);
    const tool_manifest = await this.current(userId, steps);
    return { tool_manifest, tool_manifest_hash: manifestHash(tool_manifest) };
  }

  /** At run start: the drift since the workflow was saved, or null; throws TOOL_DRIFT when its policy is "fail". */
  async driftOf(record: WorkflowRecord): Promise<ToolDrift | null> {
    const saved =
      record.tool_manifest && record.tool_manifest_hash
        ? { tool_manifest: record.tool_manifest, tool_manifest_hash: record.tool_manifest_hash }
        : null;
    return checkToolDrift(record.tool_drift, saved, saved ? await this.current(record.user_id, record.steps) : []);
  }
}

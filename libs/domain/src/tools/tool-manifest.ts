// The tool manifest of a workflow: what its agents' tools looked like when it was saved (name, description,
// parameter schema), and its sha256 over a canonical JSON. A run compares it with the registry of the day,
// so a tool changed under a saved workflow is noticed before the agent calls it with stale arguments.
import { createHash } from 'node:crypto';
import type { StepDefinition, ToolDriftPolicy, ToolSpec } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';

/** A tool as saved; `missing` when the workflow names a tool not registered at save time (it may be later). */
export type ToolManifestEntry = ToolSpec | { name: string; missing: true };
export type ToolManifest = ToolManifestEntry[];

export type ToolChangeKind = 'added' | 'removed' | 'changed';

export interface ToolChange {
  name: string;
  /** added: missing when saved, registered now; removed: the reverse; changed: see `fields`. */
  change: ToolChangeKind;
  fields?: ('description' | 'parameters')[];
}

/** The manifest a workflow was saved with; null for workflows saved before manifests existed. */
export interface SavedToolManifest {
  tool_manifest: ToolManifest;
  tool_manifest_hash: string;
}

/** What a run records when its tools differ from the saved manifest. */
export interface ToolDrift {
  tools: ToolChange[];
  saved_hash: string;
  current_hash: string;
}

/** JSON with object keys sorted at every depth, so equal values always give the same text (and hash). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function manifestHash(manifest: ToolManifest): string {
  return createHash('sha256').update(canonicalJson(manifest)).digest('hex');
}

/** Every tool name the workflow's agents list, once each, sorted. */
export function toolNamesOf(steps: readonly StepDefinition[]): string[] {
  // Workflow tools are no registry's: they are pinned with the run's sub-workflows.
  const names = steps.flatMap((step) => (step.type === 'custom_agent' ? step.tools.filter((tool) => !tool.startsWith('workflow:')) : []));
  return [...new Set(names)].sort();
}

/** The manifest of `names` from the tools known now (built-ins and the user's registry), sorted by name. */
export function buildToolManifest(names: readonly string[], known: readonly ToolSpec[]): ToolManifest {
  return [...new Set(names)].sort().map((name): ToolManifestEntry => {
    const tool = known.find((candidate) => candidate.name === name);
    return tool ? { name, description: tool.description, parameters: tool.parameters } : { name, missing: true };
  });
}

const isMissing = (entry: ToolManifestEntry): entry is { name: string; missing: true } => 'missing' in entry;

/** Per tool, what differs between the saved manifest and the current one; empty when they agree. */
export function compareManifests(saved: ToolManifest, current: ToolManifest): ToolChange[] {
  const names = [...new Set([...saved, ...current].map((entry) => entry.name))].sort();
  return names.flatMap((name): ToolChange[] => {
    const before = saved.find((entry) => entry.name === name);
    const after = current.find((entry) => entry.name === name);
    const wasThere = before !== undefined && !isMissing(before);
    const isThere = after !== undefined && !isMissing(after);
    if (!wasThere && !isThere) return [];
    if (!wasThere) return [{ name, change: 'added' }];
    if (!isThere) return [{ name, change: 'removed' }];
    const fields = (['description', 'parameters'] as const).filter((field) => canonicalJson(before[field]) !== canonicalJson(after[field]));
    return fields.length ? [{ name, change: 'changed', fields }] : [];
  });
}

const describeChange = ({ name, change, fields }: ToolChange): string => `${name} (${change}${fields ? `: ${fields.join(', ')}` : ''})`;

/**
 * At run start: how the tools differ from the manifest saved with the workflow, or null when they do not
 * (or nothing was saved). With policy "fail" a drift refuses the run, naming the tools in `details.tools`.
 */
export function checkToolDrift(policy: ToolDriftPolicy, saved: SavedToolManifest | null, current: ToolManifest): ToolDrift | null {
  if (!saved) return null;
  const tools = compareManifests(saved.tool_manifest, current);
  if (!tools.length) return null;
  const drift: ToolDrift = { tools, saved_hash: saved.tool_manifest_hash, current_hash: manifestHash(current) };
  if (policy === 'fail') {
    throw new DomainError(
      ErrorCode.ToolDrift,
      `The workflow's tools changed since it was saved: ${tools.map(describeChange).join(', ')}. Save the workflow again to accept them, or set tool_drift to "warn"`,
      { field: 'tool_drift', ...drift },
    );
  }
  return drift;
}

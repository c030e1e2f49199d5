import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import type { SavedToolManifest, ToolManifest } from '@app/domain';

/** How many runs a workflow has had, and how they ended. */
export interface WorkflowRunCounts {
  total_runs: number;
  successful_runs: number;
  failed_runs: number;
}

/** A stored workflow: its whole definition plus ownership and timestamps. */
export interface WorkflowRecord extends WorkflowDefinition, WorkflowRunCounts {
  user_id: string;
  /** Recomputed on every save; null only for workflows not saved since manifests exist. */
  tool_manifest: ToolManifest | null;
  tool_manifest_hash: string | null;
  notify_secret: string | null;
  /** The version the definition is at (workflow_versions); a run records it. */
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The definition alone, without ownership, counters and timestamps. */
export function definitionOf(record: WorkflowRecord): WorkflowDefinition {
  const {
    uuid,
    name,
    description,
    is_active,
    status,
    notify_url,
    notify_on_complete,
    notify_on_failure,
    tool_drift,
    output_history_size,
    input_schema,
    budget,
    steps,
    trigger,
    graph,
  } = record;
  return {
    uuid,
    name,
    description,
    is_active,
    status,
    notify_url,
    notify_on_complete,
    notify_on_failure,
    tool_drift,
    ...(output_history_size !== undefined ? { output_history_size } : {}),
    ...(input_schema ? { input_schema } : {}),
    ...(budget ? { budget } : {}),
    steps,
    trigger,
    graph: graph ?? null,
  };
}

/**
 * The tool manifest of a definition about to be saved, from the registry and the user's MCP servers (a
 * network call): the repository asks for it before its transaction, so no row lock is held meanwhile.
 */
export type ManifestOf = (definition: WorkflowDefinition) => Promise<SavedToolManifest>;

import type { Page, PageRequest } from '../pages';
import type { VersionNote } from './workflow-version.repository';

export type { Page, PageRequest };

export type WorkflowSummary = Omit<WorkflowRecord, 'steps' | 'trigger'> & { steps: string[]; trigger_uuid: string | null };

/** Every method is scoped to one user: another user's workflow is simply not found. */
export abstract class WorkflowRepository {
  abstract list(userId: string, page: PageRequest): Promise<Page<WorkflowSummary>>;
  abstract find(userId: string, uuid: string): Promise<WorkflowRecord | null>;
  /** The uuid of the user's workflow that holds this step, or null. */
  abstract findWorkflowOfStep(userId: string, stepUuid: string): Promise<string | null>;
  /** The user's steps with one of these uuids or names, each with the uuid of the workflow that holds it. */
  abstract findSteps(
    userId: string,
    by: { uuids: string[] } | { names: string[] },
  ): Promise<{ workflow_uuid: string; step: StepDefinition }[]>;
  abstract findWorkflowOfTrigger(userId: string, triggerUuid: string): Promise<string | null>;
  /** Whether any user's workflow, step or trigger already uses this uuid (imports must not take them). */
  abstract ownerOfUuid(uuid: string): Promise<string | null>;
  /**
   * The user who first saved a workflow, step or trigger under this uuid, kept after it is deleted: no other
   * user may take it (every save checks it again in its transaction, refusing with UUID_TAKEN).
   */
  abstract claimantOf(uuid: string): Promise<string | null>;
  /**
   * Every save stores the definition with the tool manifest `manifestOf` gives for it (asked before the save's
   * transaction), and in the same transaction the workflow's next version (`note` on it) when its content changed.
   */
  abstract create(
    userId: string,
    definition: WorkflowDefinition,
    notifySecret: string,
    manifestOf: ManifestOf,
    note?: VersionNote,
  ): Promise<WorkflowRecord>;
  /**
   * Applies `change` to the stored definition and saves the result with its tool manifest, as if under the
   * workflow's row lock throughout: a save that lands in between makes `change` run again on its result, so
   * `change` must be a pure function of the definition it gets. If `change` throws, nothing is written.
   * Returns null when the workflow is not the user's.
   */
  abstract mutate(
    userId: string,
    uuid: string,
    change: (current: WorkflowDefinition) => WorkflowDefinition,
    manifestOf: ManifestOf,
    note?: VersionNote,
  ): Promise<WorkflowRecord | null>;
  abstract delete(userId: string, uuid: string): Promise<boolean>;
  /** Replaces the secret that signs the workflow's notifications (`secret` as stored: sealed); false when the workflow is not the user's. */
  abstract setNotifySecret(userId: string, uuid: string, secret: string): Promise<boolean>;
}

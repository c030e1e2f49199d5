// What the API returns for workflows: WorkflowModel (steps as uuids) and WorkflowWithDetails (steps in full).
import type { StepDefinition, ToolDriftPolicy, TriggerDefinition } from '@app/contracts';
import type { ToolManifest } from '@app/domain';
import type { WorkflowRecord } from '@app/persistence';

export interface WorkflowView {
  uuid: string;
  user_id: string;
  name: string;
  description: string;
  is_active: boolean;
  tool_drift: ToolDriftPolicy;
  /** Read-only: the agents' tools as of the last save, and the sha256 of their canonical JSON. */
  tool_manifest: ToolManifest | null;
  tool_manifest_hash: string | null;
  trigger_uuid: string | null;
  /** The version the definition is at: every save that changes it makes the next. */
  version: number;
  steps: string[];
  created_at: Date;
  updated_at: Date;
}

export interface WorkflowDetailsView extends Omit<WorkflowView, 'steps'> {
  steps: StepDefinition[];
  trigger: TriggerDefinition | null;
  /** Only in the answer that made it (create, import as new): it is never shown again. */
  notify_secret?: string;
}

/** Never with the notify secret: it is shown once, when it is made (create, rotate). */
export function toWorkflowView(record: WorkflowRecord): WorkflowView {
  const { steps, trigger, notify_secret: _secret, ...rest } = record;
  return { ...rest, trigger_uuid: trigger?.uuid ?? null, steps: steps.map((step) => step.uuid) };
}

export function toDetailsView(record: WorkflowRecord): WorkflowDetailsView {
  return { ...toWorkflowView(record), steps: record.steps, trigger: record.trigger };
}

// Definition versions: every save of a workflow is an immutable version. What identifies a version's content
// (its hash), what two versions differ in (steps added, removed, changed field by field), and what restoring
// one writes. Pure: the repository stores versions, the service reads and restores them.
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { StepDefinition, WorkflowDefinition } from '@app/contracts';
import { canonicalJson } from '../tools/tool-manifest';
import { requestBody } from '../request-body';

/** The sha256 of the definition's canonical JSON: two saves of the same content have the same hash. */
export function definitionHash(definition: WorkflowDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/** One field that differs: its value in the older version and in the newer (absent: null). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface StepRef {
  uuid: string;
  name: string;
  type: string;
}

export interface DefinitionDiff {
  /** The workflow's own fields (name, trigger, graph…) that differ. */
  workflow_fields: FieldChange[];
  steps_added: StepRef[];
  steps_removed: StepRef[];
  /** Steps in both (by uuid) whose fields differ; `position` when a step moved in the chain. */
  steps_changed: (StepRef & { fields: FieldChange[] })[];
}

const refOf = (step: StepDefinition): StepRef => ({ uuid: step.uuid, name: step.name, type: step.type });

/** The fields of two records that differ, in a stable order (the older's keys first, then the newer's). */
function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>, skip: readonly string[]): FieldChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !skip.includes(key));
  return keys
    .filter((key) => !isDeepStrictEqual(before[key] ?? null, after[key] ?? null))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

/** What changed from `before` to `after`: steps are matched by uuid, fields compared as JSON values. */
export function diffDefinitions(before: WorkflowDefinition, after: WorkflowDefinition): DefinitionDiff {
  const old = new Map(before.steps.map((step, position) => [step.uuid, { step, position }]));
  const now = new Map(after.steps.map((step, position) => [step.uuid, { step, position }]));
  const steps_changed = after.steps.flatMap((step, position) => {
    const earlier = old.get(step.uuid);
    if (!earlier) return [];
    const fields = fieldChanges(
      { ...earlier.step, position: earlier.position } as Record<string, unknown>,
      { ...step, position } as Record<string, unknown>,
      ['uuid'],
    );
    return fields.length ? [{ ...refOf(step), fields }] : [];
  });
  return {
    workflow_fields: fieldChanges(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>, [
      'uuid',
      'steps',
    ]),
    steps_added: after.steps.filter((step) => !old.has(step.uuid)).map(refOf),
    steps_removed: before.steps.filter((step) => !now.has(step.uuid)).map(refOf),
    steps_changed,
  };
}

/**
 * What restoring `version` over `current` saves: the version's content, with the switches that say whether
 * the workflow runs now (`is_active`, `status`) kept as they are: restoring a prompt must not wake an archived
 * workflow, nor switch off one that serves traffic.
 */
export function restoredDefinition(version: WorkflowDefinition, current: WorkflowDefinition): WorkflowDefinition {
  return { ...version, uuid: current.uuid, is_active: current.is_active, status: current.status };
}

/** The longest change description a save keeps. */
export const CHANGE_DESCRIPTION_MAX_CHARS = 500;

/** POST /workflows/{uuid}/versions/{n}/restore: an optional note on the new version. */
export const VERSION_RESTORE_BODY = requestBody<{ change_description: string | null }>(
  'VersionRestore',
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      change_description: {
        type: 'string',
        minLength: 1,
        maxLength: CHANGE_DESCRIPTION_MAX_CHARS,
        description: 'Kept on the new version (default: "restored from version n")',
      },
    },
  },
  (body) => ({ change_description: (body.change_description as string | undefined) ?? null }),
  { absentIsEmpty: true },
);

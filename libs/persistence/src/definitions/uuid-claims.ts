// Clients choose the uuids of their workflows, steps and triggers. A uuid stays with the user who first saved
// it, after its row is gone (uuid_claims): a deleted trigger's uuid taken by another user would otherwise
// receive its old owner's deliveries, and anything else keyed by it would pass from one user to the other.
import type { WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode } from '@app/domain';
import type { EntityManager } from 'typeorm';

export type ClaimKind = 'workflow' | 'step' | 'trigger';

export interface UuidClaim {
  uuid: string;
  kind: ClaimKind;
  /** Where the definition names it, for the refusal. */
  field: string;
}

/** The uuids a save of this definition holds. */
export function claimsOf(definition: WorkflowDefinition): UuidClaim[] {
  return [
    { uuid: definition.uuid, kind: 'workflow' as const, field: 'uuid' },
    ...definition.steps.map((step, i) => ({ uuid: step.uuid, kind: 'step' as const, field: `steps[${i}].uuid` })),
    ...(definition.trigger ? [{ uuid: definition.trigger.uuid, kind: 'trigger' as const, field: 'trigger.uuid' }] : []),
  ];
}

export const uuidTaken = (uuid: string, field: string): DomainError =>
  new DomainError(
    ErrorCode.UuidTaken,
    `${field} ${uuid} belongs to another user: a uuid is never passed from one user to another, even once deleted; choose another`,
    { field, uuid },
  );

/**
 * Inside the save's transaction, before its rows: records the claims new to the table and refuses the save
 * (UUID_TAKEN) when another user holds one. The rows are locked in uuid order, so two saves racing for the
 * same uuids wait on each other instead of deadlocking, and the second reads the first's claim once it commits.
 */
export async function claimUuids(manager: EntityManager, userId: string, claims: UuidClaim[]): Promise<void> {
  const unique = [...new Map(claims.map((claim) => [claim.uuid, claim])).values()].sort((a, b) =>
    a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0,
  );
  if (!unique.length) return;
  const list = unique.map(() => '?').join(', ');
  await manager.query(
    `INSERT INTO uuid_claims (uuid, user_id, kind) VALUES ${unique.map(() => '(?, ?, ?)').join(', ')} ON DUPLICATE KEY UPDATE uuid = uuid`,
    unique.flatMap(({ uuid, kind }) => [uuid, userId, kind]),
  );
  // A locking read: a plain one could answer from a snapshot older than a claim committed meanwhile.
  const foreign = (await manager.query(`SELECT uuid FROM uuid_claims WHERE uuid IN (${list}) AND user_id <> ? FOR UPDATE`, [
    ...unique.map(({ uuid }) => uuid),
    userId,
  ])) as { uuid: string }[];
  const taken = unique.find(({ uuid }) => foreign.some((row) => row.uuid === uuid));
  if (taken) throw uuidTaken(taken.uuid, taken.field);
}

/** The user who first saved a workflow, step or trigger under this uuid, even if it is gone; null when no one has. */
export async function claimantOf(manager: EntityManager, uuid: string): Promise<string | null> {
  const rows = (await manager.query('SELECT user_id FROM uuid_claims WHERE uuid = ?', [uuid])) as { user_id: string }[];
  return rows[0]?.user_id ?? null;
}

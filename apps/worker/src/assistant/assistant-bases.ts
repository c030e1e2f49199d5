// The workflow an assistant session's generations start from: an edit session's source, a copy session's
// source until the copy is saved, and from a session's first save on the workflow it saved. A save that
// replaces it checks that nobody edited it since the generation read it.
import { Injectable } from '@nestjs/common';
import { ASSISTANT_SOURCE_DELETED, ASSISTANT_WORKFLOW_CHANGED } from '@app/contracts';
import type { ReplaceGuard } from '@app/definitions';
import { definitionFingerprint, type GenerationBase } from '@app/domain';
import { definitionOf, WorkflowRepository, type AssistantSessionRecord } from '@app/persistence';
import { StepError } from '../execution/step-error';

type Session = Pick<AssistantSessionRecord, 'user_id' | 'mode' | 'source_workflow_uuid' | 'workflow_uuid' | 'base_fingerprint'>;

/** The session's save replaces a workflow: its source (edit), or the one it saved before. */
export const replacesOnSave = (session: Session): boolean => session.workflow_uuid !== null || session.mode === 'edit';

function baseOf(session: Session): { as: GenerationBase['as']; uuid: string } | null {
  if (session.workflow_uuid) return { as: 'edit', uuid: session.workflow_uuid };
  if (session.mode !== 'create' && session.source_workflow_uuid)
    return { as: session.mode === 'edit' ? 'edit' : 'copy', uuid: session.source_workflow_uuid };
  return null;
}

/** No message can fix it: the session closes. */
export const sourceDeleted = (uuid: string): StepError =>
  new StepError(ASSISTANT_SOURCE_DELETED, `Workflow ${uuid}, which this session works on, has been deleted: start a new session`);

@Injectable()
export class AssistantBases {
  constructor(private readonly workflows: WorkflowRepository) {}

  async assertExists(session: Session): Promise<void> {
    const base = baseOf(session);
    if (base && !(await this.workflows.find(session.user_id, base.uuid))) throw sourceDeleted(base.uuid);
  }

  /** The base as it is now, with its fingerprint (null: the session starts from nothing). */
  async load(session: Session): Promise<{ base: GenerationBase; fingerprint: string } | null> {
    const named = baseOf(session);
    if (!named) return null;
    const record = await this.workflows.find(session.user_id, named.uuid);
    if (!record) throw sourceDeleted(named.uuid);
    const definition = definitionOf(record);
    return { base: { as: named.as, workflow_uuid: named.uuid, definition }, fingerprint: definitionFingerprint(definition) };
  }

  /** Checked under the save's row lock: the workflow is still there, and still the one the generation started from. */
  guardFor(session: Session, targetUuid: string): ReplaceGuard {
    return (current, replacement) => {
      if (current === null) throw sourceDeleted(targetUuid);
      if (session.base_fingerprint === null) return;
      const now = definitionFingerprint(current);
      // Equal to the replacement: a retried save whose first attempt was stored before its answer was.
      if (now === session.base_fingerprint || now === definitionFingerprint(replacement)) return;
      throw new StepError(
        ASSISTANT_WORKFLOW_CHANGED,
        `Workflow ${targetUuid} was changed elsewhere while I worked on it, so I saved nothing: send a message and I will start again from it as it is now`,
      );
    };
  }
}

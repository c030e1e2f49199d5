// Stages 3 to 5 and the bookkeeping around the model calls: each method is one activity, stored whole
// under its call key (AssistantStore.once).
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '@app/config';
import {
  runWorkflowId,
  type AssistantCallRef,
  type AssistantToolCall,
  type CheckResult,
  type DryRunOutcome,
  type PreparedRun,
  type WorkflowDefinition,
} from '@app/contracts';
import { WorkflowsService } from '@app/definitions';
import {
  assistantEvents,
  checkCandidate,
  DomainError,
  ErrorCode,
  dryRunFeedback,
  issuesFeedback,
  lastCorrection,
  WORKFLOW_DOCUMENT_FORMAT,
  type CandidateCheck,
  type FailedAttempt,
  type Issue,
} from '@app/domain';
import { WorkflowRepository, type AssistantSessionRecord } from '@app/persistence';
import { RunPreparer } from '@app/runs';
import { DryRunDataset } from '../evaluations/dry-run-dataset';
import { AssistantBases, replacesOnSave, sourceDeleted } from './assistant-bases';
import { AssistantStore } from './assistant-store';
import { AssistantTools } from './assistant-tools';

/**
 * What a failed turn hands the next one: its last candidate (or the one an earlier failure left) and what was
 * wrong. A turn that failed before its generation began (the clarifier's call) leaves what was there.
 */
function failedAttemptOf(session: AssistantSessionRecord, message: string): FailedAttempt | null {
  if (session.stage === 'clarification') return session.failed_attempt;
  const candidate = session.candidate ?? session.failed_attempt?.candidate ?? null;
  if (candidate === null) return null;
  const correction = lastCorrection(session.generation);
  return { candidate, problems: correction ? `${message}\n${correction}` : message };
}

@Injectable()
export class AssistantStagesService {
  constructor(
    private readonly store: AssistantStore,
    private readonly tools: AssistantTools,
    private readonly workflows: WorkflowsService,
    private readonly preparer: RunPreparer,
    private readonly definitions: WorkflowRepository,
    private readonly bases: AssistantBases,
    private readonly config: AppConfig,
    private readonly dataset: DryRunDataset,
  ) {}

  /** A turn's first work: the person's message, unless the workflow the session edits or copies is gone (SOURCE_DELETED). */
  recordUserMessage(ref: AssistantCallRef, turn: number, text: string): Promise<null> {
    return this.store.once(ref, async (session) => {
      await this.bases.assertExists(session);
      return {
        result: null,
        change: {
          stage: 'clarification',
          conversations: [...session.conversations, { role: 'user', text, turn, at: new Date().toISOString() }],
          final_error_message: null,
        },
        events:
          session.stage === 'clarification'
            ? []
            : [assistantEvents.statusChange(session.uuid, session.stage, 'clarification', 'clarification')],
      };
    });
  }

  callTool(ref: AssistantCallRef, call: AssistantToolCall): Promise<null> {
    return this.store.once(ref, async (session) => {
      const answer = await this.tools.call(session.user_id, call);
      return {
        result: null,
        change: { generation: [...session.generation, { role: 'tool', tool_call_id: call.id, name: call.name, content: answer }] },
      };
    });
  }

  private async check(session: AssistantSessionRecord, targetUuid: string): Promise<CandidateCheck> {
    if (session.candidate === null)
      return {
        ok: false,
        issues: [
          { code: ErrorCode.ValidationFailed, field: 'body', message: 'the answer must be one JSON object: the workflow definition' },
        ],
      };
    const limits = { maxSteps: this.config.assistant.maxSteps, schema: this.config.limits.schema };
    const known = await this.tools.names(session.user_id);
    const checked = checkCandidate(session.candidate, targetUuid, this.config.models, known, randomUUID, limits);
    if (!checked.ok) return checked;
    const taken = await this.takenUuids(session.user_id, checked.definition);
    return taken.length ? { ok: false, issues: taken } : checked;
  }

  /** Uuids the save would refuse: in use elsewhere (a copy that kept its source's), unless the workflow it replaces holds them. */
  private async takenUuids(userId: string, definition: WorkflowDefinition): Promise<Issue[]> {
    const replaced = await this.definitions.find(userId, definition.uuid);
    const kept = new Set([...(replaced?.steps.map((step) => step.uuid) ?? []), replaced?.trigger?.uuid]);
    const named = [
      ...definition.steps.map((step, i) => ({ uuid: step.uuid, field: `steps[${i}].uuid` })),
      ...(definition.trigger ? [{ uuid: definition.trigger.uuid, field: 'trigger.uuid' }] : []),
    ];
    const taken = await Promise.all(
      named
        .filter((entry) => !kept.has(entry.uuid))
        .map(async ({ uuid, field }): Promise<Issue[]> => {
          const claimant = await this.definitions.claimantOf(uuid);
          if (claimant !== null && claimant !== userId)
            return [{ code: ErrorCode.UuidTaken, field, message: `${uuid} belongs to another user: give it a new uuid` }];
          return (await this.definitions.ownerOfUuid(uuid))
            ? [{ code: ErrorCode.Conflict, field, message: `${uuid} is already in use by another workflow: give it a new uuid` }]
            : [];
        }),
    );
    return taken.flat();
  }

  /** Stage 3: the validator's issues go back to the model as the next user message of the generation. */
  checkCandidate(ref: AssistantCallRef, targetUuid: string): Promise<CheckResult> {
    return this.store.once<CheckResult>(ref, async (session) => {
      const checked = await this.check(session, targetUuid);
      if (checked.ok)
        return {
          result: { ok: true },
          change: { stage: 'dry_run' },
          events: [assistantEvents.statusChange(session.uuid, session.stage, 'dry_run', 'dry_run')],
        };
      const feedback = issuesFeedback(checked.issues);
      return {
        result: { ok: false },
        change: { stage: 'workflow_generation', generation: [...session.generation, { role: 'user', content: feedback }] },
        events: [
          {
            ...assistantEvents.statusChange(session.uuid, session.stage, 'workflow_generation', 'workflow_generation'),
            issues: checked.issues,
          },
        ],
      };
    });
  }

  /**
   * Stage 4: the candidate, not saved yet, recorded as a dry run under the uuid it will be saved as. Its trigger
   * data: a dataset case's when the workflow it replaces has one (DryRunDataset), else the person's intent.
   */
  async prepareDryRun(ref: AssistantCallRef, targetUuid: string, runUuid: string): Promise<PreparedRun> {
    const session = await this.store.sessions.get(ref.session_uuid);
    const checked = await this.check(session, targetUuid);
    if (!checked.ok) throw new Error(`the candidate no longer validates: ${issuesFeedback(checked.issues)}`);
    const chosen = await this.dataset.caseFor(session.user_id, targetUuid);
    const request = {
      userId: session.user_id,
      workflowUuid: targetUuid,
      triggerOutput: chosen ? chosen.case.trigger_output : { text: session.intent_summary },
      runUuid,
      temporalWorkflowId: runWorkflowId(runUuid),
      dryRun: true as const,
    };
    const { run } = await this.preparer.prepareUnsaved(request, checked.definition);
    return { ...run, heartbeat_timeout_seconds: this.config.temporal.heartbeatTimeoutSeconds };
  }

  recordDryRun(ref: AssistantCallRef, outcome: DryRunOutcome): Promise<CheckResult> {
    return this.store.once<CheckResult>(ref, async (session) => {
      // A dataset case's assertions are reported, not enforced: the dry run's model answers are made up.
      const checked = await this.dataset.check(session.user_id, outcome.run_uuid);
      const details = {
        run_uuid: outcome.run_uuid,
        status: outcome.status,
        error_message: outcome.error_message,
        ...(checked ? { dataset: checked } : {}),
      };
      if (outcome.status === 'completed')
        return {
          result: { ok: true },
          change: { stage: 'saving' },
          events: [{ ...assistantEvents.statusChange(session.uuid, session.stage, 'saving', 'saving'), dry_run: details }],
        };
      return {
        result: { ok: false },
        change: {
          stage: 'workflow_generation',
          generation: [...session.generation, { role: 'user', content: dryRunFeedback(outcome.error_message) }],
        },
        events: [
          { ...assistantEvents.statusChange(session.uuid, session.stage, 'workflow_generation', 'workflow_generation'), dry_run: details },
        ],
      };
    });
  }

  /**
   * Stage 5: through the REST import service: creates the workflow (create, copy) or replaces it whole (edit,
   * and every save after a session's first), refused when it was edited elsewhere since the generation read it.
   */
  saveCandidate(ref: AssistantCallRef, targetUuid: string, keepsOpen: boolean): Promise<null> {
    return this.store.once(ref, async (session) => {
      const document = { format: WORKFLOW_DOCUMENT_FORMAT, workflow: { ...(session.candidate as object), uuid: targetUuid } };
      const replacing = replacesOnSave(session);
      const guard = replacing ? this.bases.guardFor(session, targetUuid) : undefined;
      const note = { change_description: `saved by assistant session ${session.uuid}` };
      const { created, workflow } = await this.workflows.import(session.user_id, document, guard, note).catch((error: unknown) => {
        // Deleted between the guard's read and the save's.
        throw replacing && error instanceof DomainError && error.code === ErrorCode.NotFound ? sourceDeleted(targetUuid) : error;
      });
      const { notify_secret: _secret, ...saved } = workflow as typeof workflow & { notify_secret?: string };
      return {
        result: null,
        change: { stage: 'completed', workflow_uuid: targetUuid, failed_attempt: null, ...(keepsOpen ? {} : { is_open: false }) },
        events: [
          assistantEvents.workflow(session.uuid, session.candidate, {
            workflow_uuid: targetUuid,
            workflow: JSON.parse(JSON.stringify(saved)),
            is_edit: !created,
          }),
          assistantEvents.statusChange(session.uuid, session.stage, 'completed', 'completed', true),
        ],
      };
    });
  }

  /**
   * A failed turn. Recoverable: the session stays open, the conversation says what went wrong, and the next
   * generation goes on from the last candidate and its problems. Otherwise the session closes.
   */
  failTurn(ref: AssistantCallRef, errorCode: string, message: string, recoverable: boolean): Promise<null> {
    return this.store.once(ref, async (session) => {
      const said = {
        role: 'assistant' as const,
        text: `I could not save the workflow: ${message}`,
        turn: ref.turn,
        at: new Date().toISOString(),
      };
      const open = recoverable
        ? { failed_attempt: failedAttemptOf(session, message), conversations: [...session.conversations, said] }
        : { is_open: false };
      return {
        result: null,
        change: { stage: 'failed', final_error_message: message, ...open },
        events: [
          assistantEvents.statusChange(session.uuid, session.stage, 'failed', 'failed'),
          assistantEvents.error(session.uuid, { error_code: errorCode, message, is_recoverable: recoverable }),
        ],
      };
    });
  }

  /** The session ends between turns (idle past its limit): it takes no more messages, and a follower is told why. */
  closeSession(ref: AssistantCallRef, errorCode: string, message: string): Promise<null> {
    return this.store.once(ref, async (session) => ({
      result: null,
      change: { is_open: false, final_error_message: message },
      events: [assistantEvents.error(session.uuid, { error_code: errorCode, message, is_recoverable: false })],
    }));
  }
}

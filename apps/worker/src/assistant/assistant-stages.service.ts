// Stages 3 to 5 and the bookkeeping around the model calls: each method is one activity, stored whole
// under its call key (AssistantStore.once).
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '@app/config';
import { runWorkflowId, type AssistantCallRef, type AssistantToolCall, type CheckResult, type DryRunOutcome, type PreparedRun, type WorkflowDefinition } from '@app/contracts';
import { assistantEvents, checkCandidate, ErrorCode, dryRunFeedback, issuesFeedback, WORKFLOW_DOCUMENT_FORMAT, type CandidateCheck, type Issue } from '@app/domain';
import { WorkflowRepository, type AssistantSessionRecord } from '@app/persistence';
import { RunPreparer } from '@app/runs';
import { WorkflowsService } from '../../../api/src/workflow-definitions/workflows.service';
import { AssistantStore } from './assistant-store';
import { AssistantTools } from './assistant-tools';

@Injectable()
export class AssistantStagesService {
  constructor(
    private readonly store: AssistantStore,
    private readonly tools: AssistantTools,
    private readonly workflows: WorkflowsService,
    private readonly preparer: RunPreparer,
    private readonly definitions: WorkflowRepository,
    private readonly config: AppConfig,
  ) {}

  recordUserMessage(ref: AssistantCallRef, turn: number, text: string): Promise<null> {
    return this.store.once(ref, async (session) => ({
      result: null,
      change: { stage: 'clarification', conversations: [...session.conversations, { role: 'user', text, turn, at: new Date().toISOString() }], final_error_message: null },
      events: session.stage === 'clarification' ? [] : [assistantEvents.statusChange(session.uuid, session.stage, 'clarification', 'clarification')],
    }));
  }

  callTool(ref: AssistantCallRef, call: AssistantToolCall): Promise<null> {
    return this.store.once(ref, async (session) => {
      const answer = await this.tools.call(session.user_id, call);
      return { result: null, change: { generation: [...session.generation, { role: 'tool', tool_call_id: call.id, name: call.name, content: answer }] } };
    });
  }

  private async check(session: AssistantSessionRecord, targetUuid: string): Promise<CandidateCheck> {
    if (session.candidate === null) return { ok: false, issues: [{ code: ErrorCode.ValidationFailed, field: 'body', message: 'the answer must be one JSON object: the workflow definition' }] };
    const checked = checkCandidate(session.candidate, targetUuid, this.config.models, await this.tools.names(session.user_id), randomUUID);
    if (!checked.ok) return checked;
    const taken = await this.takenUuids(session.user_id, checked.definition);
    return taken.length ? { ok: false, issues: taken } : checked;
  }

  /** Uuids the save would refuse: in use elsewhere (a copy that kept its source's), unless the workflow it replaces holds them. */
  private async takenUuids(userId: string, definition: WorkflowDefinition): Promise<Issue[]> {
    const replaced = await this.definitions.find(userId, definition.uuid);
    const kept = new Set([...(replaced?.steps.map((step) => step.uuid) ?? []), replaced?.trigger?.uuid]);
    const named = [...definition.steps.map((step, i) => ({ uuid: step.uuid, field: `steps[${i}].uuid` })), ...(definition.trigger ? [{ uuid: definition.trigger.uuid, field: 'trigger.uuid' }] : [])];
    const taken = await Promise.all(named.filter((entry) => !kept.has(entry.uuid)).map(async ({ uuid, field }): Promise<Issue[]> => {
      const claimant = await this.definitions.claimantOf(uuid);
      if (claimant !== null && claimant !== userId) return [{ code: ErrorCode.UuidTaken, field, message: `${uuid} belongs to another user: give it a new uuid` }];
      return (await this.definitions.ownerOfUuid(uuid)) ? [{ code: ErrorCode.Conflict, field, message: `${uuid} is already in use by another workflow: give it a new uuid` }] : [];
    }));
    return taken.flat();
  }

  /** Stage 3: the validator's issues go back to the model as the next user message of the generation. */
  checkCandidate(ref: AssistantCallRef, targetUuid: string): Promise<CheckResult> {
    return this.store.once<CheckResult>(ref, async (session) => {
      const checked = await this.check(session, targetUuid);
      if (checked.ok) return { result: { ok: true }, change: { stage: 'dry_run' }, events: [assistantEvents.statusChange(session.uuid, session.stage, 'dry_run', 'dry_run')] };
      const feedback = issuesFeedback(checked.issues);
      return {
        result: { ok: false },
        change: { stage: 'workflow_generation', generation: [...session.generation, { role: 'user', content: feedback }] },
        events: [{ ...assistantEvents.statusChange(session.uuid, session.stage, 'workflow_generation', 'workflow_generation'), issues: checked.issues }],
      };
    });
  }

  /** Stage 4: the candidate, not saved yet, recorded as a dry run under the uuid it will be saved as. */
  async prepareDryRun(ref: AssistantCallRef, targetUuid: string, runUuid: string): Promise<PreparedRun> {
    const session = await this.store.sessions.get(ref.session_uuid);
    const checked = await this.check(session, targetUuid);
    if (!checked.ok) throw new Error(`the candidate no longer validates: ${issuesFeedback(checked.issues)}`);
    const request = { userId: session.user_id, workflowUuid: targetUuid, triggerOutput: { text: session.intent_summary }, runUuid, temporalWorkflowId: runWorkflowId(runUuid), dryRun: true as const };
    const { run } = await this.preparer.prepareUnsaved(request, checked.definition);
    return { ...run, heartbeat_timeout_seconds: this.config.temporal.heartbeatTimeoutSeconds };
  }

  recordDryRun(ref: AssistantCallRef, outcome: DryRunOutcome): Promise<CheckResult> {
    return this.store.once<CheckResult>(ref, async (session) => {
      const details = { run_uuid: outcome.run_uuid, status: outcome.status, error_message: outcome.error_message };
      if (outcome.status === 'completed') return { result: { ok: true }, change: { stage: 'saving' }, events: [{ ...assistantEvents.statusChange(session.uuid, session.stage, 'saving', 'saving'), dry_run: details }] };
      return {
        result: { ok: false },
        change: { stage: 'workflow_generation', generation: [...session.generation, { role: 'user', content: dryRunFeedback(outcome.error_message) }] },
        events: [{ ...assistantEvents.statusChange(session.uuid, session.stage, 'workflow_generation', 'workflow_generation'), dry_run: details }],
      };
    });
  }

  /** Stage 5: through the REST import service: creates the workflow (create, copy) or replaces it whole (edit). */
  saveCandidate(ref: AssistantCallRef, targetUuid: string): Promise<null> {
    return this.store.once(ref, async (session) => {
      const document = { format: WORKFLOW_DOCUMENT_FORMAT, workflow: { ...(session.candidate as object), uuid: targetUuid } };
      const { workflow } = await this.workflows.import(session.user_id, document);
      const { notify_secret: _secret, ...saved } = workflow as typeof workflow & { notify_secret?: string };
      return {
        result: null,
        change: { stage: 'completed', workflow_uuid: targetUuid },
        events: [
          assistantEvents.workflow(session.uuid, session.candidate, { workflow_uuid: targetUuid, workflow: JSON.parse(JSON.stringify(saved)) }),
          assistantEvents.statusChange(session.uuid, session.stage, 'completed', 'completed', true),
        ],
      };
    });
  }

  failTurn(ref: AssistantCallRef, errorCode: string, message: string): Promise<null> {
    return this.store.once(ref, async (session) => ({
      result: null,
      change: { stage: 'failed', final_error_message: message },
      events: [assistantEvents.statusChange(session.uuid, session.stage, 'failed', 'failed'), assistantEvents.error(session.uuid, { error_code: errorCode, message, is_recoverable: false })],
    }));
  }
}

// The activity side of workflow tools (`workflow:<uuid>` in an agent's tools): what the model is offered
// (the workflow's name made safe, its input_schema, its description), and each call as a child run whose
// end is the call's answer, audited like any tool call, its output naming the child run.
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  runWorkflowId,
  type StepContext,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolSpec,
  type WorkflowDefinition,
  type WorkflowToolStart,
} from '@app/contracts';
import { byteSize, jsonSchemaErrors, WORKFLOW_TOOL_PREFIX, workflowToolNames, workflowToolUuid } from '@app/domain';
import { definitionOf, RunRepository, WorkflowRepository } from '@app/persistence';
import { RunPreparer } from '@app/runs';
import type { ActivityScope } from './activity-scope';
import { AgentTranscript } from './agent-transcript.service';
import { StepError } from './step-error';
import { MCP_INLINE_ANSWER_BYTES, ToolCallService } from './tool-call.service';

/** The child run's uuid, the same for every attempt of one call: a retried start finds the run it recorded. */
export function callRunUuid(instanceUuid: string, callId: string): string {
  const hex = createHash('sha256').update(`${instanceUuid}/${callId}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Where the call's answer goes: `position` in the agent's own transcript, or (a graph's tool executor) in `conversation_uuid`, its caller's. */
export interface AnswerAt {
  position: number;
  conversation_uuid?: string;
}

const placeOf = (context: StepContext, { position, conversation_uuid }: AnswerAt) => ({
  position,
  transcriptUuid: conversation_uuid ?? context.instance_uuid,
});

@Injectable()
export class WorkflowToolService {
  constructor(
    private readonly runs: RunRepository,
    private readonly workflows: WorkflowRepository,
    private readonly toolCalls: ToolCallService,
    private readonly transcript: AgentTranscript,
    private readonly preparer: RunPreparer,
    private readonly config: AppConfig,
  ) {}

  /** The workflow tools of `names` as offered (none clashing with `taken`), and the workflow each offered name calls. */
  async resolve(context: StepContext, names: string[], taken: string[]): Promise<{ specs: ToolSpec[]; byName: Record<string, string> }> {
    const uuids = names.flatMap((name) => workflowToolUuid(name) ?? []);
    if (!uuids.length) return { specs: [], byName: {} };
    const pins = await this.pinsOf(context);
    const called = await Promise.all(uuids.map((uuid) => this.definition(context.user_id, uuid, pins)));
    const offered = workflowToolNames(called, taken);
    const specs = called.map((workflow) => ({
      name: offered.get(workflow.uuid) as string,
      description: workflow.description || workflow.name,
      parameters: (workflow.input_schema as Record<string, unknown> | undefined) ?? { type: 'object' },
    }));
    return { specs, byName: Object.fromEntries(called.map((workflow) => [offered.get(workflow.uuid) as string, workflow.uuid])) };
  }

  /** Audits the call running and records its child run; a call answered before, or with bad arguments, is answered instead. */
  async start(
    context: StepContext,
    call: ToolCallRequest,
    at: AnswerAt,
    workflowUuid: string,
    { parentStepUuid, depth, scope }: { parentStepUuid: string; depth: number; scope: ActivityScope },
  ): Promise<WorkflowToolStart> {
    const { position, transcriptUuid } = placeOf(context, at);
    const stored = await this.transcript.at(transcriptUuid, position);
    const { named, audit, answer } = this.toolCalls.attempt(context, call, position, scope, { transcriptUuid });
    named.tool_name = `${WORKFLOW_TOOL_PREFIX}${workflowUuid}`;
    const earlier = await this.toolCalls.answeredCall(context, call, stored, scope.attempt, answer);
    if (earlier) return { answered: earlier };
    const maxDepth = this.config.composition.subWorkflowMaxDepth;
    if (depth > maxDepth)
      throw new StepError(
        'SubWorkflowTooDeep',
        `tool ${call.name} would nest sub-workflows ${depth} deep, more than ${maxDepth} (SUB_WORKFLOW_MAX_DEPTH)`,
      );
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch {
      const error_message = `arguments are not valid JSON: ${call.arguments}`;
      return { answered: await answer('failed', { error: error_message }, { status: 'failed', input: null, output: null, error_message }) };
    }
    const pins = await this.pinsOf(context);
    const child = await this.definition(context.user_id, workflowUuid, pins);
    const errors = jsonSchemaErrors(child.input_schema ?? { type: 'object' }, args);
    if (errors.length) {
      const error_message = `the arguments do not follow "${child.name}"'s input_schema: ${errors.join('; ')}`;
      return { answered: await answer('failed', { error: error_message }, { status: 'failed', input: args, output: null, error_message }) };
    }
    const audit_attempt = await audit({ status: 'running', input: args, output: null, error_message: null });
    const childRunUuid = callRunUuid(context.instance_uuid, call.id);
    const prepared = await this.preparer.prepareChild(
      {
        userId: context.user_id,
        workflowUuid: child.uuid,
        triggerOutput: args,
        runUuid: childRunUuid,
        temporalWorkflowId: runWorkflowId(childRunUuid),
        ...(context.dry_run ? { dryRun: true } : {}),
      },
      { ...child, sub_workflows: pins },
      { run_uuid: context.run_uuid, step_uuid: parentStepUuid },
    );
    return { child: { ...prepared.run, depth, ...(context.dry_run ? { dry_run: true as const } : {}) }, audit_attempt };
  }

  /** The child's end as the answer: `{run_uuid, output}` (a reference when large), or `{run_uuid, error}` for the model to react to. */
  async complete(
    context: StepContext,
    call: ToolCallRequest,
    at: AnswerAt,
    childRunUuid: string,
    auditAttempt: number,
    scope: ActivityScope,
  ): Promise<ToolCallResult> {
    const { position, transcriptUuid } = placeOf(context, at);
    const [stored, child] = await Promise.all([
      this.transcript.at(transcriptUuid, position),
      this.runs.find(context.user_id, childRunUuid),
    ]);
    if (!child) throw new StepError('SubWorkflowMissing', `tool ${call.name}: its run ${childRunUuid} is not recorded`);
    const { named, answer } = this.toolCalls.attempt(context, call, position, scope, {
      transcriptUuid,
      rowAttempt: auditAttempt,
      started_at: child.started_at,
    });
    named.tool_name = `${WORKFLOW_TOOL_PREFIX}${child.workflow_uuid}`;
    const earlier = await this.toolCalls.answeredCall(context, call, stored, scope.attempt, answer);
    if (earlier) return earlier;
    const input: unknown = JSON.parse(call.arguments || '{}');
    if (child.status !== 'completed' && child.status !== 'stopped') {
      const error_message = `run ${childRunUuid} ended ${child.status}: ${child.error_message ?? 'no error recorded'}`;
      const content = { run_uuid: childRunUuid, error: error_message };
      return answer('failed', content, { status: 'failed', input, output: content, error_message });
    }
    const last = [...child.steps].reverse().find((row) => row.output)?.output;
    // A large output stays where the child stored it: the model reads it with get_output if it needs it.
    const content = !last
      ? { run_uuid: childRunUuid, output: null }
      : byteSize(last.raw_data) > MCP_INLINE_ANSWER_BYTES
        ? {
            run_uuid: childRunUuid,
            output_id: last.uuid,
            summary: last.summary,
            size_bytes: last.size_bytes,
            note: 'A large answer: call get_output with this output_id to read it in full.',
          }
        : { run_uuid: childRunUuid, output: last.raw_data };
    return answer('completed', content, { status: 'completed', input, output: content, error_message: null });
  }

  private async pinsOf(context: StepContext): Promise<Record<string, WorkflowDefinition & { version?: number }>> {
    const run = await this.runs.findRun(context.user_id, context.run_uuid);
    return (run?.definition as WorkflowDefinition | undefined)?.sub_workflows ?? {};
  }

  /** The pinned definition, else (a run begun before its pins, or resumed) the workflow as it is now. */
  private async definition(userId: string, uuid: string, pins: Record<string, WorkflowDefinition>): Promise<WorkflowDefinition> {
    if (pins[uuid]) return pins[uuid];
    const record = await this.workflows.find(userId, uuid);
    if (!record) throw new StepError('SubWorkflowMissing', `tool ${WORKFLOW_TOOL_PREFIX}${uuid} names a workflow that is gone`);
    return definitionOf(record);
  }
}

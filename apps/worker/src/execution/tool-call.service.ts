import { Injectable } from '@nestjs/common';
import {
  END_TOOL_NAME,
  type ChatMessage,
  type CustomAgentStep,
  type StepContext,
  type ToolCallRequest,
  type ToolCallResult,
} from '@app/contracts';
import { byteSize, DomainError, ErrorCode, outputPreview, SIDE_EFFECT_FREE_BUILTINS } from '@app/domain';
import { inClientSpan, Metrics } from '@app/observability';
import {
  CallAuditRepository,
  OutputRepository,
  type CallStatus,
  type ModelCallAttempt,
  type ToolCallAttempt,
  type ToolCallRecord,
} from '@app/persistence';
import { ToolCallError, ToolTransport, type ToolDescriptor } from '@app/providers';
import type { ActivityScope } from './activity-scope';
import { AgentTranscript } from './agent-transcript.service';
import { AgentToolsService, BUILTIN_TIMEOUT_MS, type ResolvedTool } from './agent-tools.service';
import type { CallQuarantine } from './call-quarantine.service';
import type { ReplayRecord } from './replay-record.service';
import { newOutput } from './step-output';

/** MCP answers larger than this reach the model as a reference to a stored output. */
export const MCP_INLINE_ANSWER_BYTES = 64 * 1024;
/** The transport kind of the built-in tools that run in the worker (providers' BuiltinToolTransport). */
const BUILTIN_TRANSPORT = 'builtin';

/** What an attempt's audit row says besides the call's identity. */
type AttemptFields = { status: CallStatus; output: unknown; error_message: string | null; input: unknown; replayed_from?: string | null };

/**
 * A folded call whose `running` row (attempt 1) its turn wrote with its answer, in one commit: its parsed
 * arguments and the row's start. The call has no other row (the row went in only where it had none).
 */
export interface StartedWithTurn {
  args: unknown;
  started_at: Date;
}

/** Given the answer's message once it is in the transcript; `turnStarted`, the next turn's row went in with it (NextTurn). */
export type Heard = (message: ChatMessage, turnStarted: boolean) => void;
/** The `running` row of the model turn that follows the call's answer (`message`): written with the answer where it goes in. */
export type NextTurn = (message: ChatMessage) => ModelCallAttempt;

/** The call's arguments parsed, null when they are not JSON. */
function parsedArguments(call: ToolCallRequest): { args: unknown } | null {
  try {
    return { args: JSON.parse(call.arguments || '{}') };
  } catch {
    return null;
  }
}

/** An MCP tool is audited under the step's name for it (`<server>.<tool>`) and its server. */
const mcpNamed = (tool: ResolvedTool | null) =>
  tool && !tool.builtin && tool.record.mcp ? { tool_name: tool.record.name, mcp_server: tool.record.mcp.connection.name } : {};

/** Calling it again changes nothing outside the run: a replay may, when its record has no identical call. */
const sideEffectFree = (tool: ResolvedTool): boolean =>
  tool.builtin ? SIDE_EFFECT_FREE_BUILTINS.includes(tool.spec.name) : tool.record.side_effect_free === true;

/**
 * One tool call of an agent, audited, its answer put into the agent's transcript. Retryable failures
 * (network, 5xx, timeouts) are thrown for Temporal to retry; final ones go back to the model as the tool's
 * answer so the agent can react.
 */
@Injectable()
export class ToolCallService {
  private readonly transports: Map<string, ToolTransport>;

  constructor(
    private readonly tools: AgentToolsService,
    private readonly outputs: OutputRepository,
    private readonly calls: CallAuditRepository,
    private readonly transcript: AgentTranscript,
    transports: ToolTransport[],
    private readonly metrics: Metrics,
    private readonly quarantine: CallQuarantine,
    private readonly record: ReplayRecord,
  ) {
    this.transports = new Map(transports.map((transport) => [transport.kind, transport]));
  }

  /**
   * `transcriptUuid`: the execution whose transcript gets the answer; the audit row goes under
   * `context.instance_uuid` (a graph's tool executor audits the calls it runs for its caller). `folded`: the
   * call runs inside its turn's activity, whose attempts are the model's: its rows count from attempt 1 (an
   * attempt before it gets the next number); `ends`, the transcript is known to end at `position` (the turn
   * just wrote the message before it), so it is not read; `tool`, the tool as the turn looked it up; `started`,
   * the turn wrote the call's `running` row with its answer (startWithTurn); `heard`, given the answer's message once
   * it is in the transcript; `nextTurn`, the `running` row of the model turn this answer is the last before, written
   * with the answer (`heard` says whether it went in).
   */
  async call(
    context: StepContext,
    step: CustomAgentStep,
    call: ToolCallRequest,
    position: number,
    scope: ActivityScope,
    transcriptUuid = context.instance_uuid,
    folded?: { ends: boolean; tool: Promise<ResolvedTool | null>; started?: StartedWithTurn; heard?: Heard; nextTurn?: NextTurn },
  ): Promise<ToolCallResult> {
    // The tool is looked up while the transcript is checked: only the message at `position` is read, not the whole transcript.
    const [stored, tool] = await Promise.all([
      folded?.ends ? null : this.transcript.at(transcriptUuid, position),
      folded?.tool ?? this.tools.find(context.user_id, step.tools, context.conversation_turn !== undefined, call.name),
    ]);
    const started = folded?.started;
    const { named, audit, answer } = this.attempt(context, call, position, scope, {
      transcriptUuid,
      rowAttempt: folded ? 1 : scope.attempt,
      started_at: started?.started_at,
      heard: folded?.heard,
      nextTurn: folded?.nextTurn,
    });
    // A call started with its turn has no other row: nothing an earlier attempt did to find.
    const earlier = started ? null : await this.answeredCall(context, call, stored, scope.attempt, answer);
    if (earlier) return earlier;

    const parsed = started ?? parsedArguments(call);
    if (!parsed) {
      const error_message = `arguments are not valid JSON: ${call.arguments}`;
      await audit({ status: 'failed', input: null, output: null, error_message });
      return answer('failed', { error: error_message });
    }
    const { args } = parsed;
    Object.assign(named, mcpNamed(tool));
    if (!tool) {
      const error_message = `no tool named ${call.name} is available to this agent`;
      await audit({ status: 'failed', input: args, output: null, error_message });
      return answer('failed', { error: error_message });
    }
    if (context.replay) {
      // A replay: the recorded output of the same call; else the tool is called again only if that is harmless.
      const recorded = await this.record.toolCall(context.replay, named.tool_name, args);
      if (recorded)
        return answer('completed', recorded.output, {
          status: 'completed',
          input: args,
          output: recorded.output,
          error_message: null,
          replayed_from: recorded.uuid,
        });
      if (!context.replay.offline && !sideEffectFree(tool)) {
        const error_message = `${ErrorCode.ReplayToolNotReplayable}: the replayed run never called ${named.tool_name} with these arguments, and ${named.tool_name} is not marked side-effect free, so the replay does not call it`;
        await audit({ status: 'failed', input: args, output: null, error_message });
        throw new DomainError(ErrorCode.ReplayToolNotReplayable, error_message, { tool: named.tool_name });
      }
    }
    const attempt = started ? 1 : await audit({ status: 'running', input: args, output: null, error_message: null });
    // A call whose earlier attempts died with their workers is not made again: this attempt ends refused.
    const refusal = await this.quarantine.ofToolCall(context.instance_uuid, call.id, named.tool_name, attempt);
    if (refusal) {
      await audit({ status: 'failed', input: args, output: null, error_message: refusal.message });
      throw refusal;
    }
    const transport = context.dry_run || context.replay?.offline ? 'dry_run' : tool.builtin ? BUILTIN_TRANSPORT : tool.record.transport;
    let output: unknown;
    try {
      output = await this.byReferenceIfLarge(context, tool, await this.execute(context, tool, args, scope.signal));
    } catch (error) {
      const error_message = (error as Error).message;
      this.metrics.toolCalls.inc({ transport, outcome: error instanceof ToolCallError ? error.kind : 'failed' });
      const failed: AttemptFields = { status: 'failed', input: args, output: null, error_message };
      // A cancelled call is the run's cancellation, not an answer for the model.
      if (scope.signal.aborted || !(error instanceof ToolCallError) || error.retryable) {
        await audit(failed);
        throw error;
      }
      return answer('failed', { error: error_message }, failed);
    }
    this.metrics.toolCalls.inc({ transport, outcome: 'completed' });
    return answer('completed', output, { status: 'completed', input: args, output, error_message: null });
  }

  /**
   * A folded call's `running` row (attempt 1) and what the call then needs, for its turn to write the row with
   * its answer, so the tool is called right after that one commit. Null where the call keeps its own path: a
   * replay (its record decides whether the tool is called), arguments that are not JSON or a tool not found (it
   * ends failed at once, its lookup's failure thrown by the call).
   */
  async startWithTurn(
    context: StepContext,
    call: ToolCallRequest,
    position: number,
    scope: ActivityScope,
    tool: Promise<ResolvedTool | null>,
  ): Promise<{ row: ToolCallAttempt; started: StartedWithTurn } | null> {
    if (context.replay) return null;
    const [found, parsed] = [await tool.catch(() => null), parsedArguments(call)];
    if (!found || !parsed) return null;
    const started_at = new Date();
    const { named, row } = this.attempt(context, call, position, scope, { rowAttempt: 1, started_at });
    Object.assign(named, mcpNamed(found));
    return {
      row: row({ status: 'running', input: parsed.args, output: null, error_message: null }),
      started: { args: parsed.args, started_at },
    };
  }

  /**
   * How this attempt writes: `row` its audit row's fields, `audit` its row, `answer` the transcript's message
   * (with, when `ended` is given, the attempt's end in the same statement, its row having said running, and
   * `nextTurn`'s row), handed to `heard` once stored. `named` is what the row names; `started_at` when the call began
   * before this activity (a workflow tool: its child run's start).
   */
  attempt(
    context: StepContext,
    call: ToolCallRequest,
    position: number,
    scope: ActivityScope,
    {
      transcriptUuid = context.instance_uuid,
      rowAttempt = scope.attempt,
      started_at = new Date(),
      heard,
      nextTurn,
    }: { transcriptUuid?: string; rowAttempt?: number; started_at?: Date; heard?: Heard; nextTurn?: NextTurn } = {},
  ) {
    // Named as the model called it, until mcpNamed says otherwise.
    const named = { tool_name: call.name, mcp_server: null as string | null };
    // The attempt the row is under: Temporal's, or the call's next when a local activity's count restarted.
    let attempt = rowAttempt;
    const record = (fields: AttemptFields): Omit<ToolCallRecord, 'uuid'> => ({
      run_uuid: context.run_uuid,
      step_instance_uuid: context.instance_uuid,
      tool_call_id: call.id,
      attempt,
      ...named,
      started_at,
      ...(fields.status === 'running'
        ? { finished_at: null, duration_ms: null }
        : { finished_at: new Date(), duration_ms: Date.now() - started_at.getTime() }),
      ...fields,
    });
    /** Writes the attempt's row; the attempt it went under. */
    const audit = async (fields: AttemptFields): Promise<number> => (attempt = await this.calls.recordToolCall(record(fields)));
    /** The answer put in the transcript; `ended`: with the attempt's end, written with it when its row says running. */
    const answer = async (status: ToolCallResult['status'], content: unknown, ended?: AttemptFields): Promise<ToolCallResult> => {
      const message: ChatMessage = { role: 'tool', tool_call_id: call.id, name: call.name, content: JSON.stringify(content) };
      const at = { instance_uuid: transcriptUuid, position, message };
      const together =
        ended === undefined
          ? { answered: false, turnStarted: false }
          : nextTurn
            ? await this.calls.recordToolAnswerStartingTurn(record(ended), at, nextTurn(message))
            : { answered: await this.calls.recordToolAnswer(record(ended), at), turnStarted: false };
      if (!together.answered) {
        if (ended) await audit(ended);
        await this.transcript.put(transcriptUuid, position, message);
      }
      heard?.(message, together.turnStarted);
      return { status, summary: outputPreview(content), size_bytes: byteSize(content) };
    };
    return { named, audit, answer, row: record };
  }

  /**
   * A call an earlier attempt finished but never reported to Temporal (it was down, or the worker died right
   * after): its result, without calling the tool again. Its answer is in the transcript, or, when that attempt
   * died between the call's audit and the transcript, only in the audit, from where `answer` puts it in place.
   */
  async answeredCall(
    context: StepContext,
    call: ToolCallRequest,
    stored: ChatMessage | null,
    attempt: number,
    answer: (status: 'completed', content: unknown) => Promise<ToolCallResult>,
  ): Promise<ToolCallResult | null> {
    // A first attempt finds nothing of its own: no read unless the transcript holds this call's answer.
    if (stored ? stored.role !== 'tool' || stored.tool_call_id !== call.id : attempt === 1) return null;
    const completed = await this.calls.completedToolCall(context.instance_uuid, call.id);
    if (!stored) return completed && answer('completed', completed.output);
    const content: unknown = JSON.parse(stored.content ?? 'null');
    return { status: completed ? 'completed' : 'failed', summary: outputPreview(content), size_bytes: byteSize(content) };
  }

  /**
   * An MCP tool's answer over MCP_INLINE_ANSWER_BYTES is stored as an output of the step, and the model
   * (and the audit) gets its reference, read in full with get_output: MCP results have no size cap of
   * their own, and every later turn sends the transcript again.
   */
  private async byReferenceIfLarge(context: StepContext, tool: ResolvedTool, output: unknown): Promise<unknown> {
    if (tool.builtin || tool.record.transport !== 'mcp' || byteSize(output) <= MCP_INLINE_ANSWER_BYTES) return output;
    const stored = newOutput(context, output);
    await this.outputs.storeOutput(stored);
    return {
      output_id: stored.uuid,
      summary: stored.summary,
      size_bytes: stored.size_bytes,
      note: 'A large answer: call get_output with this output_id to read it in full.',
    };
  }

  /** Through the transport the tool names; `get_output` is answered here, as it reads this run's user's outputs. */
  private async execute(context: StepContext, tool: ResolvedTool, args: unknown, signal: AbortSignal): Promise<unknown> {
    if (tool.builtin && tool.spec.name === 'get_output') return this.getOutput(context, args);
    // The workflow sees the call and closes the conversation once the turn has answered.
    if (tool.builtin && tool.spec.name === END_TOOL_NAME)
      return { ended: true, note: 'The conversation closes after your reply: answer the user one last time.' };
    // A dry run (or an offline replay) calls no tool that reaches outside: the answer says what would have been sent.
    if (context.dry_run || context.replay?.offline) return { dry_run: true, tool: tool.spec.name, arguments: args };
    const descriptor: ToolDescriptor = tool.builtin
      ? { ...tool.spec, transport: BUILTIN_TRANSPORT, timeout_ms: BUILTIN_TIMEOUT_MS }
      : tool.record;
    const transport = this.transports.get(descriptor.transport);
    if (!transport) throw new ToolCallError(`no transport ${descriptor.transport} for tool ${descriptor.name}`, false);
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': descriptor.name,
      'stepwise.tool.transport': descriptor.transport,
    };
    return inClientSpan(`execute_tool ${descriptor.name}`, attributes, () => transport.call(descriptor, args, { signal }));
  }

  private async getOutput(context: StepContext, args: unknown): Promise<unknown> {
    const outputId = (args as { output_id?: unknown })?.output_id;
    const output = typeof outputId === 'string' ? await this.outputs.findOutput(context.user_id, outputId) : null;
    if (!output) throw new ToolCallError(`no output ${String(outputId)}`, false);
    return output.raw_data;
  }
}

import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  END_TOOL_NAME,
  type AgentStart,
  type AgentTurnResult,
  type ChatMessage,
  type CustomAgentStep,
  type StepContext,
  type ToolCallRequest,
  type ToolSpec,
} from '@app/contracts';
import { CallAuditRepository, OutputRepository, StepRepository, type ModelCallAttempt } from '@app/persistence';
import { runEnding } from '@app/runs';
import { SHARED_ACTIVITY_MS, type ActivityScope } from './activity-scope';
import { AgentTranscript } from './agent-transcript.service';
import { AgentToolsService, shortTools, type ResolvedTool } from './agent-tools.service';
import { modelOf, ModelCallService, type ModelCallStart } from './model-call.service';
import { RecentOutputs } from './recent-outputs';
import { promptApart, StepInputService } from './step-input.service';
import { completedStored, newOutput, storedOf, type StoredOutput } from './step-output';
import { StructuredOutputService } from './structured-output.service';
import { ToolCallService, type Heard, type NextTurn, type StartedWithTurn } from './tool-call.service';
import { WorkflowToolService } from './workflow-tool.service';

/**
 * A turn by its number and the transcript's length before it; `known`, that transcript as this activity wrote it;
 * `begun`, the turn's model call whose `running` row (attempt 1) went in with the last answer before it; `goesOn`,
 * the turn after it follows in this activity if this one runs all its calls.
 */
type TurnAt = { turn: number; length: number; known?: ChatMessage[]; begun?: ModelCallStart; goesOn?: boolean };

/** What a turn asks its model: the step's model, the transcript so far and the agent's tools. */
const turnRequest = (step: CustomAgentStep, messages: ChatMessage[], tools: ToolSpec[]) => ({ ...modelOf(step), messages, tools });

/** Where an activity's rounds begin; `forMs`, how long they may go on; `known`, the transcript as the step's start wrote it. */
export interface TurnsFrom {
  turn: number;
  lastTurn: number;
  length: number;
  forMs?: number;
  known?: ChatMessage[];
}

/** What the activity that asked an agent's final answer knows at its completion (AgentStepService.complete). */
export interface AnsweredHere {
  transcript?: ChatMessage[];
  endsRun?: boolean;
}

/** Rounds run in one activity: the last turn's result, and the transcript where the activity wrote it whole. */
export interface TurnsRun {
  result: AgentTurnResult;
  transcript?: ChatMessage[];
}

/** A run completed by its last step, as finishRun would record it. */
const completedRun = (runUuid: string) => runEnding(runUuid, { status: 'completed', error_message: null });

/** Finds the tool a call names, from reads started once (AgentToolsService.findEach). */
type ToolFinder = ReturnType<AgentToolsService['findEach']>;

const REFERENCE_NOTE =
  '\n\nEarlier outputs are given as {output_id, summary} references: call get_output with an output_id to read the full data.';

/** The tools of the leading `calls` of `shortTools`, as `find` looks them up (a failed lookup is the call's to report). */
function lookUp(
  find: (offeredName: string) => Promise<ResolvedTool | null>,
  calls: ToolCallRequest[],
  shortTools: string[],
): Promise<ResolvedTool | null>[] {
  const leading = calls.findIndex((call) => !shortTools.includes(call.name));
  const lookups = calls.slice(0, leading === -1 ? calls.length : leading).map((call) => find(call.name));
  for (const lookup of lookups) lookup.catch(() => undefined);
  return lookups;
}

/**
 * custom_agent in pieces the workflow strings together: its start, its turns (a local turn with the short calls
 * it asks for, and the rounds of short calls after it), its other tool calls, its completion. Every model
 * turn and tool call is audited in MySQL, where an activity run again finds what it made before.
 */
@Injectable()
export class AgentStepService {
  constructor(
    private readonly inputs: StepInputService,
    private readonly tools: AgentToolsService,
    private readonly models: ModelCallService,
    private readonly transcript: AgentTranscript,
    private readonly structured: StructuredOutputService,
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly calls: CallAuditRepository,
    private readonly config: AppConfig,
    private readonly workflowTools: WorkflowToolService,
    private readonly toolCalls: ToolCallService,
    private readonly recent: RecentOutputs,
  ) {}

  /** The step's start: its input, its transcript's first messages, its tools and which of them are short. */
  async start(context: StepContext, step: CustomAgentStep): Promise<AgentStart> {
    return (await this.begin(context, step)).start;
  }

  /** `start`, and the first messages where it wrote them (nothing else in the transcript: its first turn need not read it). */
  async begin(context: StepContext, step: CustomAgentStep): Promise<{ start: AgentStart; known?: ChatMessage[] }> {
    const [resolved, input] = await Promise.all([
      this.tools.resolve(context.user_id, step.tools, context.conversation_turn !== undefined),
      this.inputs.build(context, step.system_prompt, 'reference', step.loop),
    ]);
    const named = resolved.map((tool) => tool.spec);
    const workflows = await this.workflowTools.resolve(
      context,
      step.tools,
      named.map((tool) => tool.name),
    );
    const tools = [...named, ...workflows.specs];
    const messages: ChatMessage[] = [
      { role: 'system', content: input.system + REFERENCE_NOTE },
      { role: 'user', content: input.user },
    ];
    // A start run again (a local activity whose worker died after its turns) keeps the messages they appended.
    const inputData = { ...input.record, tools: tools.map((tool) => tool.name) };
    const begun = await this.steps.startStepBeginningMessages(context.instance_uuid, inputData, {
      list: messages,
      apart: promptApart(input),
    });
    const start = {
      tools,
      conversation_length: messages.length,
      local_tools: shortTools(resolved, this.config.toolCalls.localMaxTimeoutMs),
      ...(workflows.specs.length ? { workflow_tools: workflows.byName } : {}),
    };
    return { start, ...(begun ? { known: messages } : {}) };
  }

  /**
   * One model turn, and with `shortTools` the leading calls of those tools its answer asks for (a folded
   * round: one local activity). Each call is audited and answered as callTool would, so a turn run again
   * after its worker died finds the answers its first run put in the transcript.
   */
  async turn(
    context: StepContext,
    step: CustomAgentStep,
    tools: ToolSpec[],
    turn: number,
    length: number,
    scope: ActivityScope,
    shortTools?: string[],
  ): Promise<AgentTurnResult> {
    return (await this.roundOf(context, step, tools, { turn, length }, scope, shortTools ?? [])).result;
  }

  /**
   * A turn and the short calls it runs; `transcript`: the transcript as it now stands, where this turn wrote all of
   * it past `known` (its model asked, every call's answer appended), so the next turn need not read it. Where the
   * next turn `goesOn` here, the last answer's commit begins it (`begun`, where its row went in).
   */
  private async roundOf(
    context: StepContext,
    step: CustomAgentStep,
    tools: ToolSpec[],
    at: TurnAt,
    scope: ActivityScope,
    shortTools: string[],
    find?: ToolFinder,
  ): Promise<{ result: AgentTurnResult; transcript?: ChatMessage[]; begun?: ModelCallStart }> {
    const turned = await this.modelTurn(context, step, tools, at, scope, shortTools, find);
    const { result, fresh, lookups, started } = turned;
    const calls = result.tool_calls;
    const appended: ChatMessage[] = [];
    let next: ModelCallStart | undefined;
    let begun: ModelCallStart | undefined;
    const heard: Heard = (message, turnStarted) => {
      appended.push(message);
      if (turnStarted) begun = next;
    };
    const { transcript } = turned;
    const nextTurn: NextTurn = (message) => {
      const request = turnRequest(step, [...(transcript ?? []), ...appended, message], tools);
      next = this.models.prepare(context, at.turn + 1, request, { ...scope, attempt: 1 });
      return next.running;
    };
    const beginsNext = at.goesOn && transcript && lookups.length === calls.length && !calls.some((call) => call.name === END_TOOL_NAME);
    let position = result.conversation_length;
    for (const [index, tool] of lookups.entries()) {
      const last = index === lookups.length - 1 && appended.length === index;
      // After a fresh answer the transcript ends with it: nothing at a call's position to look for.
      const folded = {
        ends: fresh,
        tool,
        heard,
        ...(index === 0 && started ? { started } : {}),
        ...(beginsNext && last ? { nextTurn } : {}),
      };
      await this.toolCalls.call(context, step, calls[index], position, scope, context.instance_uuid, folded);
      position += 1;
    }
    const ran = shortTools.length ? { ...result, conversation_length: position, tool_calls_run: lookups.length } : result;
    const whole = transcript && appended.length === lookups.length ? [...transcript, ...appended] : undefined;
    return { result: ran, ...(whole ? { transcript: whole } : {}), ...(begun && whole ? { begun } : {}) };
  }

  /**
   * Folded rounds, one after another (`lastTurn`: runs begun since an agent's rounds share a local activity):
   * from `turn`, while each turn asks only for short calls and ran them all, up to `lastTurn`, for about `forMs`
   * (a round begun before it ends is finished), and not past a cancel or the conversation's end tool. The last
   * turn's result, `turn` its number: the workflow goes on from there; `transcript`, as this activity wrote it
   * whole (its final answer for `complete`).
   */
  async turns(
    context: StepContext,
    step: CustomAgentStep,
    tools: ToolSpec[],
    { turn, lastTurn, length, forMs = SHARED_ACTIVITY_MS, known: startKnown }: TurnsFrom,
    scope: ActivityScope,
    shortTools: string[],
  ): Promise<TurnsRun> {
    const until = Date.now() + forMs;
    // The short tools are read once for all the activity's rounds (a change to one counts from the next activity).
    const find = this.findShort(context, step, shortTools);
    let known = startKnown;
    let begun: ModelCallStart | undefined;
    for (let current = turn, at = length; ; current++) {
      // A later turn counts its attempts as its own activity would have: from 1, the audit taking the next
      // number where an earlier run of this activity got that far (as after a crash).
      const attempt = current === turn ? scope : { ...scope, attempt: 1 };
      const goesOn = current < lastTurn && Date.now() < until && !scope.signal.aborted;
      const round = await this.roundOf(
        context,
        step,
        tools,
        { turn: current, length: at, known, begun, goesOn },
        attempt,
        shortTools,
        find,
      );
      const { result } = round;
      const { tool_calls: calls, tool_calls_run: run } = result;
      const roundDone = calls.length > 0 && run === calls.length && !calls.some((call) => call.name === END_TOOL_NAME);
      // A turn begun with the round's last answer is asked here, whatever the time: its row says it runs.
      const stops = !round.begun && (current >= lastTurn || Date.now() >= until);
      if (!roundDone || stops || scope.signal.aborted) return { result: { ...result, turn: current }, transcript: round.transcript };
      at = result.conversation_length;
      known = round.transcript;
      begun = round.begun;
    }
  }

  private findShort(context: StepContext, step: CustomAgentStep, shortTools: string[]): ToolFinder {
    return this.tools.findEach(context.user_id, step.tools, context.conversation_turn !== undefined, shortTools);
  }

  /**
   * The turn's model call; `fresh` when this attempt asked the model and its answer now ends the transcript.
   * `lookups`: the tools of the leading calls of `shortTools` the answer asks for, looked up while the model is asked;
   * `started`, the first of them was started with the answer (its `running` row written in the same commit).
   */
  private async modelTurn(
    context: StepContext,
    step: CustomAgentStep,
    tools: ToolSpec[],
    { turn, length, known, begun }: TurnAt,
    scope: ActivityScope,
    shortTools: string[],
    // The short tools' reads go beside the transcript's and the model's: the answer's first call needs its tool found to start with it.
    find: ToolFinder = this.findShort(context, step, shortTools),
  ): Promise<{
    result: AgentTurnResult;
    fresh: boolean;
    lookups: Promise<ResolvedTool | null>[];
    started?: StartedWithTurn;
    /** The transcript with the answer, where nothing stood past `length` before it. */
    transcript?: ChatMessage[];
  }> {
    // `known`: the transcript as this activity wrote it, `length` long and nothing after it (appends take only the next position).
    const { messages, next } =
      known?.length === length ? { messages: known, next: null } : await this.transcript.load(context.instance_uuid, length);
    const earlier = await this.answeredTurn(context, turn, length, next, scope.attempt);
    if (earlier) return { result: earlier, fresh: false, lookups: lookUp(find, earlier.tool_calls, shortTools) };
    const { response, ended } = begun
      ? await this.models.send(context, begun, 1, scope)
      : await this.models.ask(context, turn, turnRequest(step, messages, tools), scope);
    const calls = response.message.tool_calls ?? [];
    const lookups = lookUp(find, calls, shortTools);
    const first = lookups.length ? await this.toolCalls.startWithTurn(context, calls[0], length + 1, scope, lookups[0]) : null;
    const started = await this.recordAnswer(context, ended, length, response.message, first);
    return {
      result: { tool_calls: calls, conversation_length: length + 1, usage: response.usage },
      fresh: true,
      lookups,
      ...(started ? { started } : {}),
      ...(next === null ? { transcript: [...messages, response.message] } : {}),
    };
  }

  /**
   * The model call's end and its answer in the transcript, in one trip, and with them, given `first`, the
   * `running` row of the answer's first call (its tool then called right after this one commit): the call's
   * started form where that row went in. Where the transcript is not as expected (a reset run's holds more),
   * the end and the answer are written each on its own (the rest dropped: it ends with the answer either way),
   * and the call writes its row itself, as where its key was taken (a tool_call_id the model used before).
   */
  private async recordAnswer(
    context: StepContext,
    ended: ModelCallAttempt,
    position: number,
    message: ChatMessage,
    first: Awaited<ReturnType<ToolCallService['startWithTurn']>>,
  ): Promise<StartedWithTurn | undefined> {
    const answer = { instance_uuid: context.instance_uuid, position, message };
    if (first) {
      const { answered, toolStarted } = await this.calls.recordModelAnswerStartingTool(ended, answer, first.row);
      if (answered) return toolStarted ? first.started : undefined;
    } else if (await this.calls.recordModelAnswer(ended, answer)) return undefined;
    await this.calls.recordModelCall(ended);
    await this.transcript.put(context.instance_uuid, position, message);
    return undefined;
  }

  /**
   * A turn an earlier attempt finished (its model call completed) but never reported to Temporal: its result,
   * without asking the model again. The answer is at its position in the transcript, or, when that attempt
   * died between the call's audit and the transcript, in the call's audit, from where it is put in place.
   */
  private async answeredTurn(
    context: StepContext,
    turn: number,
    length: number,
    stored: ChatMessage | null,
    attempt: number,
  ): Promise<AgentTurnResult | null> {
    // A first attempt finds nothing of its own: no read unless the transcript holds a model answer there.
    if (stored ? stored.role !== 'assistant' : attempt === 1) return null;
    const call = await this.calls.completedModelCall(context.instance_uuid, turn);
    if (!call) return null;
    const answer = stored ?? (call.response as { message: ChatMessage }).message;
    if (!stored) await this.transcript.put(context.instance_uuid, length, answer);
    const { prompt_tokens, completion_tokens, total_tokens } = call;
    return {
      tool_calls: answer.tool_calls ?? [],
      conversation_length: length + 1,
      usage: { prompt_tokens, completion_tokens, total_tokens },
    };
  }

  /**
   * The final answer (the last turn's) becomes the output; one that breaks the output_schema is corrected
   * here, in turns numbered after the agent's own (each of its turns added one assistant message). From the
   * activity that asked that answer: `transcript`, as it wrote it (no earlier attempt can have completed the step:
   * nothing read), and `endsRun`, the run's end written with the step's unless a cancel came (`runEnded`, present
   * where it was: whether that end was the run's).
   */
  async complete(
    context: StepContext,
    step: CustomAgentStep,
    length: number,
    scope: ActivityScope,
    { transcript, endsRun }: AnsweredHere = {},
  ): Promise<{ stored: StoredOutput; runEnded?: boolean }> {
    const known = transcript?.length === length ? transcript : undefined;
    const done = known ? null : await completedStored(this.steps, this.outputs, context);
    if (done) return { stored: done };
    const messages = known ?? (await this.transcript.read(context.instance_uuid, length));
    const turns = messages.filter((message) => message.role === 'assistant').length;
    const answer = await this.structured.settle(context, step, messages, turns, scope);
    const output = newOutput(context, answer.data);
    const completion = { instance_uuid: context.instance_uuid, output, messages: answer.messages };
    if (endsRun && !scope.signal.aborted)
      return { stored: storedOf(output), runEnded: await this.steps.completeStepEndingRun(completion, completedRun(context.run_uuid)) };
    await this.steps.completeStep(context.instance_uuid, output, { messages: answer.messages });
    // As an LLM step's: a chain's next step, on this worker, reads it from here (not a loop's iterations).
    if (!context.execution) this.recent.keep(output);
    return { stored: storedOf(output) };
  }
}

// The activity side of graph tool executors (tool_executor steps): an agent execution hands its tool calls over
// and ends with them as its output; the tool executor's execution runs them (ToolCallService, one activity
// each, audited under the executor) with the answers put in the caller's transcript, and its output lists
// each call with its answer (a workflow tool's call is a child run: WorkflowToolService). A later execution of
// the caller goes on with that transcript.
import { Injectable } from '@nestjs/common';
import type {
  AgentStart,
  ChatMessage,
  TranscriptRef,
  CustomAgentStep,
  OutputRef,
  StepContext,
  ToolCallRequest,
  ToolHandoff,
} from '@app/contracts';
import { parseJsonAnswer } from '@app/domain';
import { OutputRepository, StepRepository } from '@app/persistence';
import { AgentTranscript } from './agent-transcript.service';
import { AgentToolsService } from './agent-tools.service';
import { completedOutput, newOutput, refOf } from './step-output';
import { WorkflowToolService } from './workflow-tool.service';

const parsed = (text: string | null | undefined): unknown => parseJsonAnswer(text ?? null) ?? text ?? null;

@Injectable()
export class ToolExecutorService {
  constructor(
    private readonly steps: StepRepository,
    private readonly outputs: OutputRepository,
    private readonly transcript: AgentTranscript,
    private readonly tools: AgentToolsService,
    private readonly workflowTools: WorkflowToolService,
  ) {}

  /** The agent execution's output is the calls it handed over; its transcript stays on its row for the answers. */
  async handOff(context: StepContext, calls: ToolCallRequest[]): Promise<OutputRef> {
    const done = await completedOutput(this.steps, this.outputs, context);
    if (done) return done;
    const output = newOutput(context, { tool_calls: calls.map((call) => ({ name: call.name, arguments: parsed(call.arguments) })) });
    await this.steps.completeStep(context.instance_uuid, output);
    return refOf(output);
  }

  async start(context: StepContext, handoff: ToolHandoff): Promise<void> {
    await this.steps.startStep(context.instance_uuid, {
      caller_step_uuid: handoff.caller_step_uuid,
      caller_instance_uuid: handoff.conversation.instance_uuid,
      tool_calls: handoff.calls,
    });
  }

  /** Each call with the answer it left in the caller's transcript: what a per-tool or ALWAYS edge's target reads as $previous_output. */
  async complete(context: StepContext, handoff: ToolHandoff): Promise<OutputRef> {
    const done = await completedOutput(this.steps, this.outputs, context);
    if (done) return done;
    const { instance_uuid, conversation_length } = handoff.conversation;
    const answers = (await this.transcript.read(instance_uuid, conversation_length + handoff.calls.length)).slice(conversation_length);
    const output = newOutput(
      context,
      handoff.calls.map((call, i) => ({ tool: call.name, arguments: parsed(call.arguments), result: parsed(answers[i]?.content) })),
    );
    await this.steps.completeStep(context.instance_uuid, output);
    return refOf(output);
  }

  /** A new execution of the caller that starts from its earlier transcript, tool answers included, instead of a fresh prompt. */
  async continueAgent(context: StepContext, step: CustomAgentStep, from: TranscriptRef): Promise<AgentStart> {
    const named = (await this.tools.resolve(context.user_id, step.tools, context.conversation_turn !== undefined)).map((tool) => tool.spec);
    // Its workflow tools are offered again under the same names (same pins, same other tools), for its next hand-off.
    const workflows = await this.workflowTools.resolve(
      context,
      step.tools,
      named.map((tool) => tool.name),
    );
    const tools = [...named, ...workflows.specs];
    await this.steps.startStep(context.instance_uuid, { continues: from.instance_uuid, tools: tools.map((tool) => tool.name) });
    const messages: ChatMessage[] = await this.transcript.read(from.instance_uuid, from.conversation_length);
    return {
      tools,
      conversation_length: await this.transcript.start(context.instance_uuid, messages),
      ...(workflows.specs.length ? { workflow_tools: workflows.byName } : {}),
    };
  }
}

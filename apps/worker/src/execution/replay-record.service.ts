import { Injectable } from '@nestjs/common';
import type { JsonValue, ReplaySource } from '@app/contracts';
import { canonicalJson } from '@app/domain';
import { CallAuditRepository, RunRepository, type ModelCallRecord, type ToolCallRecord } from '@app/persistence';
import type { ModelResponse } from '@app/providers';

/** How many of the replayed run's calls of one tool a replay's tool call compares its arguments with. */
export const RECORDED_TOOL_CALLS_COMPARED = 500;

/**
 * What a replay answers from the run it replays (`ReplaySource`): a model call asked with the same request
 * hash, a tool call made with the same arguments (compared as canonical JSON), a person's answer to a step.
 */
@Injectable()
export class ReplayRecord {
  constructor(
    private readonly calls: CallAuditRepository,
    private readonly runs: RunRepository,
  ) {}

  /**
   * The recorded call whose request had this hash, and its answer as the provider gave it then, at no cost: no
   * tokens are used, nothing is spent (the recorded call says what it cost).
   */
  async modelAnswer(source: ReplaySource, requestHash: string | null): Promise<{ call: ModelCallRecord; response: ModelResponse } | null> {
    const call = requestHash === null ? null : await this.calls.recordedModelCall(source.of, requestHash);
    if (!call) return null;
    const answer = call.response as Pick<ModelResponse, 'message' | 'finish_reason' | 'model'>;
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    return { call, response: { message: answer.message, finish_reason: answer.finish_reason, model: answer.model, usage, duration_ms: 0 } };
  }

  /** The first recorded call of the tool (as audited: an MCP tool by `<server>.<tool>`) with these arguments. */
  async toolCall(source: ReplaySource, toolName: string, args: unknown): Promise<ToolCallRecord | null> {
    const wanted = canonicalJson(args);
    const recorded = await this.calls.recordedToolCalls(source.of, toolName, RECORDED_TOOL_CALLS_COMPARED);
    return recorded.find((call) => canonicalJson(call.input) === wanted) ?? null;
  }

  /** The answer the step (by its uuid in the definition) took in the replayed run; undefined when it took none. */
  async humanAnswer(source: ReplaySource, userId: string, stepUuid: string): Promise<{ input: JsonValue } | undefined> {
    const run = await this.runs.find(userId, source.of);
    const step = run?.steps.find((candidate) => candidate.step_definition_uuid === stepUuid && candidate.status === 'completed');
    return step?.output ? { input: step.output.raw_data as JsonValue } : undefined;
  }
}

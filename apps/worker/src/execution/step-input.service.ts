// What a model step sees: its system prompt with placeholders resolved, and its user message. LLM steps
// get the full data; agents get compact {output_id, summary} references and fetch data with get_output.
import { Injectable } from '@nestjs/common';
import { LOOP_DEFAULTS, type ForEachLoop, type JsonValue, type StepContext, type StepLoop } from '@app/contracts';
import {
  canonicalJson,
  findPlaceholders,
  formatForPrompt,
  getPath,
  loopSourceRef,
  pickFromHistory,
  renderTemplate,
  type PlaceholderRef,
} from '@app/domain';
import { StepError } from './step-error';
import { ConversationRepository, OutputRepository, type OutputRecord } from '@app/persistence';
import { RecentOutputs } from './recent-outputs';

export type DataMode = 'full' | 'reference';

export interface StepInput {
  system: string;
  user: string;
  /** What the audit keeps as the step's input_data. */
  record: { system_prompt: string; user_message: string; references: { placeholder: string; output_id: string | null }[] };
}

const TASK_MESSAGE = 'Execute your task.';

/**
 * A prompt this large goes into the step's messages in a statement of its own: with the step's input_data, which
 * holds it too, one statement could pass the server's packet limit (16 MiB by default).
 */
const ONE_STATEMENT_PROMPT_CHARS = 1024 * 1024;
export const promptApart = (input: Pick<StepInput, 'system' | 'user'>): boolean =>
  input.system.length + input.user.length > ONE_STATEMENT_PROMPT_CHARS;

@Injectable()
export class StepInputService {
  constructor(
    private readonly outputs: OutputRepository,
    private readonly conversations: ConversationRepository,
    private readonly recent: RecentOutputs,
  ) {}

  /**
   * `held`: the output of the step before whose end has not committed yet (it commits with this step's start, a
   * chain's steps sharing an activity): read from here however the prompt names it, never from MySQL.
   */
  async build(context: StepContext, systemPrompt: string, mode: DataMode, loop?: StepLoop | null, held?: OutputRecord): Promise<StepInput> {
    const refs = findPlaceholders(systemPrompt);
    const outputs = new Map<string, OutputRecord | null>();
    // Read once per source, not per placeholder: a prompt naming a large output a thousand ways loads it once.
    const sources = new Map<string, OutputRecord | null>();
    for (const ref of refs.filter((ref) => !isItemRef(ref))) {
      const source = sourceOf(ref);
      if (!sources.has(source)) sources.set(source, await this.referenced(context, ref, mode, held));
      outputs.set(ref.raw, sources.get(source)!);
    }
    const item = refs.some(isItemRef) ? await this.currentItem(context, loop) : undefined;

    const render = (ref: PlaceholderRef) =>
      isItemRef(ref) ? presentItem(item, ref) : this.present(outputs.get(ref.raw) ?? null, ref, mode);
    const system = renderTemplate(systemPrompt, render);
    // With no placeholder at all, the previous output (the trigger data first) is the user message.
    // In a conversation the turn's first step answers the user: its previous output is the message, not the trigger.
    const inConversation = context.conversation_turn !== undefined;
    const previous =
      refs.length || (inConversation && !context.previous_step_uuid)
        ? null
        : await this.referenced(context, { raw: '$previous_output', kind: 'previous', path: [] }, mode, held);
    const previousText = previous ? `Previous output:\n${this.present(previous, { raw: '', kind: 'previous', path: [] }, mode)}` : null;
    const user = inConversation
      ? [await this.conversationSoFar(context), previousText].filter(Boolean).join('\n\n')
      : (previousText ?? TASK_MESSAGE);
    return {
      system,
      user,
      record: {
        system_prompt: system,
        user_message: user,
        references: [...outputs.entries(), ...(previous ? [['$previous_output', previous] as const] : [])].map(([placeholder, output]) => ({
          placeholder,
          output_id: output?.uuid ?? null,
        })),
      },
    };
  }

  /**
   * A JSON template's value (a sub_workflow's input, `loop` its for_each): a string that is one placeholder (or $previous_output)
   * becomes the value it names, any other string has its placeholders rendered as text; absent: the trigger data.
   */
  async value(context: StepContext, template: JsonValue | undefined, loop?: StepLoop | null): Promise<unknown> {
    if (template === undefined) return (await this.outputs.triggerOutput(context.run_uuid))?.raw_data ?? null;
    const item = await this.currentItem(context, loop);
    const read = async (ref: PlaceholderRef) => {
      if (isItemRef(ref)) {
        const found = ref.kind === 'item_index' ? item?.index : getPath(item?.value, ref.path);
        return found === undefined ? (ref.default ?? null) : found;
      }
      const output = await this.outputFor(context, ref);
      const value = output ? getPath(output.raw_data, ref.path) : undefined;
      return value === undefined ? (ref.default ?? null) : value;
    };
    const resolve = async (value: JsonValue): Promise<unknown> => {
      if (Array.isArray(value)) return Promise.all(value.map(resolve));
      if (value !== null && typeof value === 'object')
        return Object.fromEntries(await Promise.all(Object.entries(value).map(async ([key, inner]) => [key, await resolve(inner)])));
      if (typeof value !== 'string') return value;
      if (value.trim() === '$previous_output') return read({ raw: value, kind: 'previous', path: [] });
      const refs = findPlaceholders(value);
      if (refs.length === 1 && refs[0].raw === value.trim()) return read(refs[0]);
      const values = new Map<string, unknown>();
      for (const ref of refs) values.set(ref.raw, await read(ref));
      return renderTemplate(value, (ref) => formatForPrompt(values.get(ref.raw) ?? null));
    };
    return resolve(template);
  }

  /** Conversational runs: every step of a turn sees the conversation so far, the user's latest message last. */
  private async conversationSoFar(context: StepContext): Promise<string> {
    const messages = (await this.conversations.conversation(context.run_uuid)).filter(
      (message) => message.turn <= context.conversation_turn!,
    );
    const lines = messages.map((message) => `${message.role === 'user' ? 'User' : 'Assistant'}: ${message.content ?? ''}`);
    return `Conversation so far (the user's latest message last):\n${lines.join('\n')}`;
  }

  /**
   * The array a for_each loop runs over, resolved from its input_path placeholder. Each iteration resolves it
   * again and picks its element by index, so item data never travels through Temporal.
   */
  async loopItems(context: StepContext, loop: ForEachLoop): Promise<unknown[]> {
    const ref = loopSourceRef(loop.input_path);
    const source = ref ? await this.outputFor(context, ref) : null;
    const items = ref && source ? getPath(source.raw_data, ref.path) : undefined;
    if (!Array.isArray(items)) {
      throw new StepError(
        'LoopInputNotArray',
        `loop.input_path ${loop.input_path} does not name an array (found ${items === undefined ? 'nothing' : typeof items})`,
      );
    }
    return items;
  }

  private async currentItem(
    context: StepContext,
    loop: StepLoop | null | undefined,
  ): Promise<{ value: unknown; index: number } | undefined> {
    if (!context.execution || loop?.type !== 'for_each') return undefined;
    const items = await this.loopItems(context, loop);
    return { value: items[context.execution.index], index: context.execution.index };
  }

  /**
   * The output a placeholder reads. In a replay, a reference (an agent's `{output_id, summary}`) names the
   * replayed run's output instead when that holds the same data: the prompt then asks what the recorded one
   * asked (its hash matches), and get_output reads the same data by either id.
   */
  private async referenced(context: StepContext, ref: PlaceholderRef, mode: DataMode, held?: OutputRecord): Promise<OutputRecord | null> {
    const output = await this.outputFor(context, ref, held);
    if (!output || !context.replay || mode !== 'reference' || ref.path.length) return output;
    const recorded = await this.outputFor({ ...context, run_uuid: context.replay.of }, ref);
    const same =
      recorded && recorded.size_bytes === output.size_bytes && canonicalJson(recorded.raw_data) === canonicalJson(output.raw_data);
    return same ? recorded : output;
  }

  private async outputFor(context: StepContext, ref: PlaceholderRef, held?: OutputRecord): Promise<OutputRecord | null> {
    const before = ref.kind === 'previous' || (ref.kind === 'step' && ref.step_uuid === context.previous_step_uuid);
    // The step before is a chain's plain step (no loop): its one output is its whole history.
    if (held && before && context.previous_step_uuid) return pickFromHistory([held], ref.index) ?? null;
    if (ref.kind === 'step') {
      // Without an index: the step's own output. With one: a pick from its latest outputs (a loop's iterations).
      if (ref.index === undefined) return this.outputs.outputOfStep(context.run_uuid, ref.step_uuid!);
      const history = await this.outputs.outputHistory(
        context.run_uuid,
        ref.step_uuid!,
        context.output_history_size ?? LOOP_DEFAULTS.output_history_size,
      );
      return pickFromHistory(history, ref.index) ?? null;
    }
    if (ref.kind === 'previous' && context.previous_step_uuid) {
      // A chain step's (no execution row): the previous step's output as this worker just stored it, when it did.
      const kept = context.execution ? null : this.recent.take(context.run_uuid, context.previous_output_id);
      return kept ?? this.outputs.outputOfStep(context.run_uuid, context.previous_step_uuid);
    }
    return this.recent.trigger(context.run_uuid, () => this.outputs.triggerOutput(context.run_uuid));
  }

  private present(output: OutputRecord | null, ref: PlaceholderRef, mode: DataMode): string {
    if (!output) return ref.default ?? 'null';
    if (ref.path.length) {
      const value = getPath(output.raw_data, ref.path);
      return value === undefined ? (ref.default ?? 'null') : formatForPrompt(value);
    }
    if (mode === 'reference') return JSON.stringify({ output_id: output.uuid, summary: output.summary });
    return output.markdown_representation ?? formatForPrompt(output.raw_data);
  }
}

const isItemRef = (ref: PlaceholderRef) => ref.kind === 'item' || ref.kind === 'item_index';

/** Which stored output a placeholder reads (its path aside): the trigger, the previous step's, or a step's pick. */
const sourceOf = (ref: PlaceholderRef): string => (ref.kind === 'step' ? `step:${ref.step_uuid}:${ref.index ?? ''}` : ref.kind);

function presentItem(item: { value: unknown; index: number } | undefined, ref: PlaceholderRef): string {
  const value = item === undefined ? undefined : ref.kind === 'item_index' ? item.index : getPath(item.value, ref.path);
  return value === undefined ? (ref.default ?? 'null') : formatForPrompt(value);
}

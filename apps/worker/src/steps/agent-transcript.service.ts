import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '@app/contracts';
import { StepRepository } from '@app/persistence';
import { StepError } from './step-error';

/**
 * An agent's transcript (its model messages), kept on its step instance (the audit shows it as it grows). Reads take a known
 * length and writes a position, both given by the workflow: a retried activity rewrites its own message
 * rather than appending a second one, and never sees a message written after its turn.
 */
@Injectable()
export class AgentTranscript {
  constructor(private readonly steps: StepRepository) {}

  async start(instanceUuid: string, messages: ChatMessage[]): Promise<number> {
    await this.steps.saveMessages(instanceUuid, messages);
    return messages.length;
  }

  /** The first `length` messages. */
  async read(instanceUuid: string, length: number): Promise<ChatMessage[]> {
    return (await this.load(instanceUuid, length)).messages;
  }

  /** The first `length` messages, and the one stored at `length` if any: an earlier attempt's work. */
  async load(instanceUuid: string, length: number): Promise<{ messages: ChatMessage[]; next: ChatMessage | null }> {
    const stored = ((await this.steps.instance(instanceUuid))?.messages ?? []) as ChatMessage[];
    if (stored.length < length) {
      throw new StepError('ConversationLost', `the agent's transcript has ${stored.length} messages stored, ${length} expected`);
    }
    return { messages: stored.slice(0, length), next: stored[length] ?? null };
  }

  /** Stores `messages` (what `load` gave) followed by `message`, dropping any after them; returns the new length. */
  async append(instanceUuid: string, messages: ChatMessage[], message: ChatMessage): Promise<number> {
    await this.steps.saveMessages(instanceUuid, [...messages, message]);
    return messages.length + 1;
  }
}

import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '@app/contracts';
import { StepRepository } from '@app/persistence';
import { StepError } from './step-error';

/**
 * An agent's transcript (its model messages), kept on its step instance (the audit shows it as it grows). Reads take a known
 * length and writes a position, both given by the workflow: a retried activity rewrites its own message
 * rather than appending a second one, and never sees a message written after its turn. A message is added
 * in one statement however long the transcript, so a long agent's rounds cost what its first ones did.
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
    const stored = ((await this.steps.messagesOf(instanceUuid)) ?? []) as ChatMessage[];
    assertHolds(stored.length, length);
    return { messages: stored.slice(0, length), next: stored[length] ?? null };
  }

  /** The message stored at `position` if any (an earlier attempt's work), without reading those before it. */
  async at(instanceUuid: string, position: number): Promise<ChatMessage | null> {
    const { length, message } = await this.steps.messageAt(instanceUuid, position);
    assertHolds(length, position);
    return (message as ChatMessage | null) ?? null;
  }

  /** Puts `message` at `position`, dropping any after it (a retried or reset activity's); returns the new length. */
  async put(instanceUuid: string, position: number, message: ChatMessage): Promise<number> {
    if (!(await this.steps.appendMessage(instanceUuid, position, message))) {
      // Rare: the transcript holds a message at `position` already (an earlier attempt's), rewritten whole.
      await this.steps.saveMessages(instanceUuid, [...(await this.read(instanceUuid, position)), message]);
    }
    return position + 1;
  }
}

function assertHolds(stored: number, expected: number): void {
  if (stored < expected)
    throw new StepError('ConversationLost', `the agent's transcript has ${stored} messages stored, ${expected} expected`);
}

import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '@app/contracts';
import { RunRepository } from '@app/persistence';
import { StepError } from './step-error';

/**
 * An agent's conversation, kept on its step instance (the audit shows it as it grows). Reads take a known
 * length and writes a position, both given by the workflow: a retried activity rewrites its own message
 * rather than appending a second one, and never sees a message written after its turn.
 */
@Injectable()
export class AgentConversation {
  constructor(private readonly runs: RunRepository) {}

  async start(instanceUuid: string, messages: ChatMessage[]): Promise<number> {
    await this.runs.saveMessages(instanceUuid, messages);
    return messages.length;
  }

  /** The first `length` messages. */
  async read(instanceUuid: string, length: number): Promise<ChatMessage[]> {
    const stored = ((await this.runs.instance(instanceUuid))?.messages ?? []) as ChatMessage[];
    if (stored.length < length) {
      throw new StepError('ConversationLost', `the agent's conversation has ${stored.length} messages stored, ${length} expected`);
    }
    return stored.slice(0, length);
  }

  /** The message stored at `position`, if the conversation is that long: an earlier attempt's work. */
  async at(instanceUuid: string, position: number): Promise<ChatMessage | null> {
    const stored = ((await this.runs.instance(instanceUuid))?.messages ?? []) as ChatMessage[];
    return stored[position] ?? null;
  }

  /** Puts `message` at `position` (the messages before it are kept, any after it dropped); returns the new length. */
  async put(instanceUuid: string, position: number, message: ChatMessage): Promise<number> {
    const messages = [...(await this.read(instanceUuid, position)), message];
    await this.runs.saveMessages(instanceUuid, messages);
    return messages.length;
  }
}

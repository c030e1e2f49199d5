import type { ConversationMessage } from '@app/contracts';

/** Conversational runs: the messages on the run's row, and the run between messages (awaiting_input) and turns (running). */
export abstract class ConversationRepository {
  /** The messages so far, in order. */
  abstract conversation(runUuid: string): Promise<ConversationMessage[]>;
  /** Puts a message at its position (a retried activity rewrites its own). */
  abstract putConversationMessage(runUuid: string, position: number, message: ConversationMessage): Promise<void>;
  abstract setConversationStatus(runUuid: string, status: 'running' | 'awaiting_input'): Promise<void>;
}

// The activity side of conversational runs: the messages on the run (the audit of who said what in which
// turn) and the run's status between turns (awaiting_input while it waits for a message).
import { Injectable } from '@nestjs/common';
import type { ConversationMessage } from '@app/contracts';
import { replyTextOf } from '@app/domain';
import { ConversationRepository, OutputRepository } from '@app/persistence';

const positionOf = (turn: number, role: ConversationMessage['role']) => (turn - 1) * 2 + (role === 'user' ? 0 : 1);

@Injectable()
export class ConversationService {
  constructor(
    private readonly outputs: OutputRepository,
    private readonly conversations: ConversationRepository,
  ) {}

  async open(runUuid: string): Promise<void> {
    await this.conversations.setConversationStatus(runUuid, 'awaiting_input');
  }

  async receive(runUuid: string, turn: number, content: string): Promise<void> {
    await this.conversations.putConversationMessage(runUuid, positionOf(turn, 'user'), {
      role: 'user',
      content,
      turn,
      at: new Date().toISOString(),
    });
    await this.conversations.setConversationStatus(runUuid, 'running');
  }

  /** The reply is the text of the turn's last output; the run waits for the next message unless it is closing. */
  async answer(runUuid: string, userId: string, turn: number, outputId: string | null, closing: boolean): Promise<string | null> {
    const output = outputId ? await this.outputs.findOutput(userId, outputId) : null;
    const reply = output ? replyTextOf(output.raw_data) : null;
    await this.conversations.putConversationMessage(runUuid, positionOf(turn, 'assistant'), {
      role: 'assistant',
      content: reply,
      turn,
      at: new Date().toISOString(),
    });
    if (!closing) await this.conversations.setConversationStatus(runUuid, 'awaiting_input');
    return reply;
  }
}

import type { ConversationMessage } from '@app/contracts';
import type { DataSource } from 'typeorm';
import { ConversationRepository } from './conversation.repository';
import { RunEntity } from './run.entities';
import { runTransaction } from './run-sql';

export class TypeormConversationRepository extends ConversationRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async conversation(runUuid: string): Promise<ConversationMessage[]> {
    const run = await this.dataSource.manager.findOne(RunEntity, {
      where: { uuid: runUuid },
      select: { uuid: true, conversation_messages: true },
    });
    return ((run?.conversation_messages as (ConversationMessage | null)[] | null) ?? []).filter(
      (message): message is ConversationMessage => message !== null,
    );
  }

  async putConversationMessage(runUuid: string, position: number, message: ConversationMessage): Promise<void> {
    await runTransaction(this.dataSource, async (manager) => {
      const run = await manager.findOne(RunEntity, {
        where: { uuid: runUuid },
        select: { uuid: true, conversation_messages: true },
        lock: { mode: 'pessimistic_write' },
      });
      const messages = [...((run?.conversation_messages as ConversationMessage[] | null) ?? [])];
      messages[position] = message;
      await manager.update(RunEntity, { uuid: runUuid }, { conversation_messages: messages as never });
    });
  }

  async setConversationStatus(runUuid: string, status: 'running' | 'awaiting_input'): Promise<void> {
    const from = status === 'running' ? 'awaiting_input' : 'running';
    await runTransaction(this.dataSource, (manager) => manager.update(RunEntity, { uuid: runUuid, status: from }, { status }));
  }
}

import { Injectable } from '@nestjs/common';
import type { AssistantCallRef } from '@app/contracts';
import type { AssistantEventPayload } from '@app/domain';
import { AssistantRepository, type AssistantSessionChange, type AssistantSessionRecord } from '@app/persistence';

/** What one activity's work amounts to: its result, the session's changes and the events it adds. */
export interface AssistantWork<T> {
  result: T;
  change?: AssistantSessionChange;
  events?: AssistantEventPayload[];
}

/**
 * Every assistant activity writes through `once`: its work is stored whole under its call key, so an
 * activity retried after it committed (the worker died before reporting) answers the stored result and
 * neither calls the model again nor adds an event twice.
 */
@Injectable()
export class AssistantStore {
  constructor(readonly sessions: AssistantRepository) {}

  async once<T>(
    { session_uuid, call_key }: AssistantCallRef,
    work: (session: AssistantSessionRecord) => Promise<AssistantWork<T>>,
  ): Promise<T> {
    const stored = await this.sessions.findCall(session_uuid, call_key);
    if (stored !== null) return stored as T;
    const { result, change = {}, events = [] } = await work(await this.sessions.get(session_uuid));
    const keyed = events.map((payload, i) => ({ key: `${call_key}#${i}`, payload }));
    if (await this.sessions.commit(session_uuid, call_key, result, change, keyed)) return result;
    return (await this.sessions.findCall(session_uuid, call_key)) as T;
  }
}

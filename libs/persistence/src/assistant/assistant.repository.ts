import type { AssistantMode, AssistantStage, ChatMessage, ModelProvider } from '@app/contracts';
import type { FailedAttempt } from '@app/domain';
import type { Page, PageRequest } from '../pages';

/** One line of the conversation a person has with the assistant. */
export interface AssistantConversationEntry {
  role: 'user' | 'assistant';
  text: string;
  turn: number;
  at: string;
}

export interface AssistantSessionRecord {
  uuid: string;
  user_id: string;
  mode: AssistantMode;
  source_workflow_uuid: string | null;
  provider: ModelProvider | null;
  model: string | null;
  stage: AssistantStage;
  previous_stage: AssistantStage | null;
  intent_summary: string;
  conversations: AssistantConversationEntry[];
  pending_questions: string[];
  /** The generation conversation (system, tool answers, corrections): what a retried model call resends. */
  generation: ChatMessage[];
  /** The latest definition the model wrote, as it wrote it. */
  candidate: unknown;
  workflow_uuid: string | null;
  final_error_message: string | null;
  /** The session takes messages: false once it ended (the workflow it edits deleted, idle past its limit, or a failure before sessions stayed open). */
  is_open: boolean;
  /** definitionFingerprint of the workflow the generation started from, when its save replaces that workflow. */
  base_fingerprint: string | null;
  /** A failed turn's last candidate and its problems, which the next generation goes on from. */
  failed_attempt: FailedAttempt | null;
  prompt_tokens: number;
  completion_tokens: number;
  created_at: Date;
  updated_at: Date;
}

export type NewAssistantSession = Pick<AssistantSessionRecord, 'uuid' | 'user_id' | 'mode' | 'source_workflow_uuid' | 'provider' | 'model'>;

/** What one activity changes on the session; a new `stage` moves the old one to previous_stage. */
export type AssistantSessionChange = Partial<
  Pick<
    AssistantSessionRecord,
    | 'stage'
    | 'intent_summary'
    | 'conversations'
    | 'pending_questions'
    | 'generation'
    | 'candidate'
    | 'workflow_uuid'
    | 'final_error_message'
    | 'is_open'
    | 'base_fingerprint'
    | 'failed_attempt'
  >
> & {
  tokens?: { prompt: number; completion: number };
};

export interface AssistantEventRecord {
  /** The event's place in the session: the SSE id. */
  seq: number;
  payload: Record<string, unknown>;
}

/** An event an activity adds; `key` is unique in the session, so the activity retried adds nothing twice. */
export interface NewAssistantEvent {
  key: string;
  payload: Record<string, unknown>;
}

export abstract class AssistantRepository {
  abstract create(session: NewAssistantSession): Promise<AssistantSessionRecord>;
  /** Scoped to the user: another user's session is not found. */
  abstract find(userId: string, uuid: string): Promise<AssistantSessionRecord | null>;
  /** For the worker's activities, which act for the session's user. */
  abstract get(uuid: string): Promise<AssistantSessionRecord>;
  abstract list(userId: string, page: PageRequest): Promise<Page<AssistantSessionRecord>>;
  abstract delete(userId: string, uuid: string): Promise<boolean>;
  /** The session takes no more messages (its workflow in Temporal is gone). */
  abstract close(uuid: string): Promise<void>;
  /** The result an activity stored under this key, or null when it has not finished. */
  abstract findCall(sessionUuid: string, callKey: string): Promise<unknown>;
  /**
   * One activity's work, whole or not at all: its result under its key, the session's changes and its
   * events. False (and nothing written) when the key was stored already.
   */
  abstract commit(
    sessionUuid: string,
    callKey: string,
    result: unknown,
    change: AssistantSessionChange,
    events: NewAssistantEvent[],
  ): Promise<boolean>;
  /** The seq of the session's last event (0: none yet). */
  abstract lastSeq(sessionUuid: string): Promise<number>;
  /** Events after `seq`, in order. */
  abstract eventsAfter(sessionUuid: string, seq: number, limit: number): Promise<AssistantEventRecord[]>;
}

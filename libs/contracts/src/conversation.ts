// Conversational workflows: a run stays open between user messages, each delivered through a
// Temporal Update that runs one turn (the graph walked from its entry node to END) and answers the reply.
// The workflow defines the update from this name (defineUpdate lives in libs/engine: contracts stay I/O-free).

export const SEND_MESSAGE_UPDATE = 'sendMessage';

/** The built-in tool every agent of a conversational workflow gets: calling it ends the conversation after the turn. */
export const END_TOOL_NAME = 'end';

/** A conversation closes after this long without a message unless the graph says otherwise. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 3600;

/** Turns one execution runs before it continues as new (sooner if Temporal suggests it). */
export const TURNS_PER_EXECUTION = 50;

export interface SendMessageArgs {
  content: string;
}

export interface TurnReply {
  /** 1-based number of the turn in the conversation. */
  turn: number;
  /** The text of the turn's last step output, null when no step produced one. */
  reply: string | null;
  /**
   * `completed` when the turn ended the conversation (the end tool), `awaiting_input` while it stays open,
   * `failed` when a step of the turn failed or a guard rail stopped it (error_message; the conversation stays open).
   */
  status: 'awaiting_input' | 'completed' | 'failed';
  error_message?: string | null;
}

/** One message of a conversational run (workflow_runs.conversation_messages), at position (turn - 1) * 2 for the user, + 1 for the reply. */
export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string | null;
  turn: number;
  at: string;
}

/** Carried over when a conversation continues as new. */
export interface ContinuedConversation {
  turns: number;
  /** Executions so far per step uuid, so execution rows keep their indexes. */
  executions: Record<string, number>;
  /** Steps with a failed execution, so their rows close as failed when the run ends. */
  failed: string[];
}

/** The failure types the update's validator rejects with (the API answers 409 CONVERSATION_BUSY or RUN_NOT_ACTIVE). */
export const CONVERSATION_BUSY = 'ConversationBusy';
export const CONVERSATION_CLOSED = 'ConversationClosed';

// Workflow side of conversational runs: the Update each user message arrives through. A turn runs inside
// the update's handler, so the caller gets the reply as the update's result; the validator refuses a
// message while a turn runs or once the conversation closes, so a refused one never enters the history.
import { ApplicationFailure, condition, defineUpdate, setHandler } from '@temporalio/workflow';
import { CONVERSATION_BUSY, CONVERSATION_CLOSED, SEND_MESSAGE_UPDATE, type SendMessageArgs, type TurnReply } from '@app/contracts';

export const sendMessageUpdate = defineUpdate<TurnReply, [SendMessageArgs]>(SEND_MESSAGE_UPDATE);

export type TurnRunner = (turn: number, content: string) => Promise<TurnReply>;

export interface ConversationState {
  turns: number;
  /** A turn runs now: the next message waits for its reply. */
  busy: boolean;
  /** The conversation ends (the end tool, the idle timeout): no message is taken any more. */
  closing: boolean;
}

export interface ConversationInbox {
  state: ConversationState;
  /** Starts taking turns, numbered after `turnsSoFar` (the turns of earlier executions of the run). */
  serve(turnsSoFar: number, runTurn: TurnRunner): void;
}

const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** Registers the update handler (call it before the workflow's first await, so no message finds it missing). */
export function conversationInbox(): ConversationInbox {
  const state: ConversationState = { turns: 0, busy: false, closing: false };
  let runner: TurnRunner | null = null;
  setHandler(
    sendMessageUpdate,
    async ({ content }) => {
      state.busy = true;
      try {
        await condition(() => runner !== null);
        state.turns += 1;
        return await runner!(state.turns, content);
      } finally {
        state.busy = false;
      }
    },
    {
      validator: (_message: SendMessageArgs) => {
        if (state.closing) throw refuse(CONVERSATION_CLOSED, 'The conversation is closed: it takes no more messages');
        if (state.busy) throw refuse(CONVERSATION_BUSY, 'A turn is running: send the next message once it has answered');
      },
    },
  );
  return {
    state,
    serve(turnsSoFar, runTurn) {
      state.turns = turnsSoFar;
      runner = runTurn;
    },
  };
}

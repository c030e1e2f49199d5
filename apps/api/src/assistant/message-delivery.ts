// A message's way into its session's workflow. The turn before writes its final event a moment before the
// workflow takes in that the turn ended; a message sent in that moment is refused ASSISTANT_BUSY although the
// person saw the turn end, so such a refusal is tried again for a few seconds.
import { DomainError, ErrorCode } from '@app/domain';

export interface Delivery {
  /** Hands the message over (the Update); throws the coded refusal. */
  send(): Promise<void>;
  /** The session's last event is still the one the message came after, and it ended its turn. */
  turnEnded(): Promise<boolean>;
  /** ASSISTANT_CLOSED: the session's workflow ended, so its row should say so too. */
  closed(): Promise<void>;
}

export const SETTLING_RETRIES = 30;
const SETTLING_RETRY_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const refusedWith = (error: unknown, code: ErrorCode) => error instanceof DomainError && error.code === code;

export async function deliverMessage(delivery: Delivery, retryMs = SETTLING_RETRY_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await delivery.send();
    } catch (error) {
      if (refusedWith(error, ErrorCode.AssistantClosed)) await delivery.closed();
      if (!refusedWith(error, ErrorCode.AssistantBusy) || attempt >= SETTLING_RETRIES || !(await delivery.turnEnded())) throw error;
      await sleep(retryMs);
    }
  }
}

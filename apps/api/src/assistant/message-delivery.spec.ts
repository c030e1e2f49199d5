import { DomainError, ErrorCode } from '@app/domain';
import { deliverMessage, SETTLING_RETRIES, type Delivery } from './message-delivery';

const refusal = (code: ErrorCode) => new DomainError(code, code, { field: 'text' });

/** A workflow that refuses the first `refusals` messages, and a session whose last event did or did not end its turn. */
function delivery(refusals: ErrorCode[], turnEnded: boolean) {
  const calls = { sent: 0, closed: 0 };
  const sut: Delivery = {
    send: async () => {
      const code = refusals[calls.sent++];
      if (code) throw refusal(code);
    },
    turnEnded: async () => turnEnded,
    closed: async () => void calls.closed++,
  };
  return { sut, calls };
}

describe(deliverMessage.name, () => {
  it('tries a message again while the workflow has not yet taken in the end of a turn the person saw end', async () => {
    const { sut, calls } = delivery([ErrorCode.AssistantBusy, ErrorCode.AssistantBusy], true);
    await deliverMessage(sut, 1);
    expect(calls).toEqual({ sent: 3, closed: 0 });
  });

  it('answers ASSISTANT_BUSY at once while a turn really runs, and gives up after SETTLING_RETRIES', async () => {
    const running = delivery([ErrorCode.AssistantBusy], false);
    await expect(deliverMessage(running.sut, 1)).rejects.toMatchObject({ code: ErrorCode.AssistantBusy });
    expect(running.calls.sent).toBe(1);
    const stuck = delivery(
      Array.from({ length: SETTLING_RETRIES + 5 }, () => ErrorCode.AssistantBusy),
      true,
    );
    await expect(deliverMessage(stuck.sut, 1)).rejects.toMatchObject({ code: ErrorCode.AssistantBusy });
    expect(stuck.calls.sent).toBe(SETTLING_RETRIES);
  });

  it('closes the session on ASSISTANT_CLOSED, and passes other failures on untouched', async () => {
    const closed = delivery([ErrorCode.AssistantClosed], true);
    await expect(deliverMessage(closed.sut, 1)).rejects.toMatchObject({ code: ErrorCode.AssistantClosed });
    expect(closed.calls).toEqual({ sent: 1, closed: 1 });
    const down = delivery([ErrorCode.TemporalUnavailable], true);
    await expect(deliverMessage(down.sut, 1)).rejects.toMatchObject({ code: ErrorCode.TemporalUnavailable });
    expect(down.calls).toEqual({ sent: 1, closed: 0 });
  });
});

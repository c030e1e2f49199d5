// Event streams each API key holds open at once (SSE_MAX_STREAMS_PER_KEY): each polls MySQL every 150 ms
// while it lasts. Counted in this process's memory, like the request rate: with several API replicas a
// key may hold this many on each.
import { DomainError, ErrorCode } from '@app/domain';

export class StreamSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly perKey: number) {}

  /** Takes one of the key's slots, or throws TOO_MANY_STREAMS; the function returned gives it back (once). */
  take(keyId: string): () => void {
    const held = this.held.get(keyId) ?? 0;
    if (held >= this.perKey) {
      throw new DomainError(
        ErrorCode.TooManyStreams,
        `This API key holds ${held} event streams open already, the most it may: close one first`,
        { limit: this.perKey },
      );
    }
    this.held.set(keyId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(keyId) ?? 1) - 1;
      if (left > 0) this.held.set(keyId, left);
      else this.held.delete(keyId);
    };
  }

  /** Runs `work` holding one of the key's slots (TOO_MANY_STREAMS when it has none left), given back however it ends. */
  async holding<T>(keyId: string, work: () => Promise<T>): Promise<T> {
    const release = this.take(keyId);
    try {
      return await work();
    } finally {
      release();
    }
  }
}

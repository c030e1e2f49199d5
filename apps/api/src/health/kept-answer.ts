/**
 * An answer asked at most once per `keptMs`: it serves every caller for that long after it came, and
 * callers while it is being asked share the one question.
 */
export class KeptAnswer<T> {
  private asked: Promise<T> | null = null;
  /** When the answer came; null while it is being asked. */
  private answeredAt: number | null = null;

  constructor(
    private readonly ask: () => Promise<T>,
    private readonly keptMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    if (this.asked && (this.answeredAt === null || this.now() - this.answeredAt < this.keptMs)) return this.asked;
    const asked = this.ask();
    this.asked = asked;
    this.answeredAt = null;
    const settled = () => {
      if (this.asked === asked) this.answeredAt = this.now();
    };
    asked.then(settled, settled);
    return asked;
  }
}

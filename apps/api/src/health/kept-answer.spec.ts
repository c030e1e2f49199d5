import { KeptAnswer } from './kept-answer';

describe(KeptAnswer.name, () => {
  it('asks once for every caller while asking and for the kept time after the answer came, then asks again', async () => {
    let now = 0;
    let asked = 0;
    let answer!: (value: number) => void;
    const sut = new KeptAnswer(
      () => new Promise<number>((resolve) => ((answer = resolve), asked++)),
      1000,
      () => now,
    );

    const waiting = [sut.get(), sut.get(), sut.get()];
    now = 5000; // a slow answer: still shared while it is asked
    answer(1);
    expect(await Promise.all(waiting)).toEqual([1, 1, 1]);
    now = 5999;
    expect(await sut.get()).toBe(1);
    expect(asked).toBe(1);

    now = 6000;
    const again = sut.get();
    answer(2);
    expect(await again).toBe(2);
    expect(asked).toBe(2);
  });

  it('keeps a failure for the kept time too: a dead database is not asked by every caller', async () => {
    let asked = 0;
    const sut = new KeptAnswer(
      () => (asked++, Promise.reject(new Error('down'))),
      1000,
      () => 0,
    );
    await expect(sut.get()).rejects.toThrow('down');
    await expect(sut.get()).rejects.toThrow('down');
    expect(asked).toBe(1);
  });
});

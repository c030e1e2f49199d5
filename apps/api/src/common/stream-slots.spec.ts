import { StreamSlots } from './stream-slots';

describe(StreamSlots.name, () => {
  it("refuses a key's stream past its cap with TOO_MANY_STREAMS, counts each key apart, and takes a slot back once", () => {
    const sut = new StreamSlots(2);
    const first = sut.take('k1');
    sut.take('k1');
    expect(() => sut.take('k1')).toThrow(expect.objectContaining({ code: 'TOO_MANY_STREAMS', details: { limit: 2 } }));
    expect(() => sut.take('k2')).not.toThrow();
    first();
    first();
    expect(() => sut.take('k1')).not.toThrow();
    expect(() => sut.take('k1')).toThrow(expect.objectContaining({ code: 'TOO_MANY_STREAMS' }));
  });
});

describe('StreamSlots.holding', () => {
  it('gives the slot back when the work ends and when it fails, and refuses work past the cap without running it', async () => {
    const sut = new StreamSlots(1);
    await expect(sut.holding('k1', async () => 'done')).resolves.toBe('done');
    await expect(sut.holding('k1', () => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    const release = sut.take('k1');
    const work = jest.fn(async () => undefined);
    await expect(sut.holding('k1', work)).rejects.toMatchObject({ code: 'TOO_MANY_STREAMS' });
    expect(work).not.toHaveBeenCalled();
    release();
    await expect(sut.holding('k1', work)).resolves.toBeUndefined();
  });
});

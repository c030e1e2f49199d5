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

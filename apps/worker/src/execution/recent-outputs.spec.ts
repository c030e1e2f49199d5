import type { NewOutput } from '@app/persistence';
import { RecentOutputs } from './recent-outputs';

const output = (uuid: string, run_uuid = 'run-1', size_bytes = 10): NewOutput => ({
  uuid,
  run_uuid,
  user_id: 'user-1',
  step_instance_uuid: 'step-row',
  raw_data: { answer: uuid },
  summary: uuid,
  markdown_representation: null,
  size_bytes,
});

describe(RecentOutputs.name, () => {
  let sut: RecentOutputs;
  beforeEach(() => (sut = new RecentOutputs()));

  it('gives back a kept output once, to its own run', () => {
    sut.keep(output('o-1'));
    expect(sut.take('run-2', 'o-1')).toBeNull();
    expect(sut.take('run-1', 'o-1')).toMatchObject({ uuid: 'o-1', raw_data: { answer: 'o-1' } });
    expect(sut.take('run-1', 'o-1')).toBeNull();
  });

  it('knows nothing of an output it did not keep, nor of no id at all', () => {
    sut.keep(output('o-1'));
    expect(sut.take('run-1', 'o-2')).toBeNull();
    expect(sut.take('run-1', undefined)).toBeNull();
  });

  it('keeps no large output', () => {
    sut.keep(output('big', 'run-1', 16 * 1024 + 1));
    expect(sut.take('run-1', 'big')).toBeNull();
  });

  it('forgets the oldest past 256 kept', () => {
    for (let i = 0; i <= 256; i++) sut.keep(output(`o-${i}`));
    expect(sut.take('run-1', 'o-0')).toBeNull();
    expect(sut.take('run-1', 'o-1')).not.toBeNull();
    expect(sut.take('run-1', 'o-256')).not.toBeNull();
  });
});

describe(`${RecentOutputs.name} trigger outputs`, () => {
  let sut: RecentOutputs;
  beforeEach(() => (sut = new RecentOutputs()));

  it("reads a run's trigger output once, then answers from memory", async () => {
    const read = jest.fn(async () => ({ ...output('t-1'), created_at: new Date() }));
    expect(await sut.trigger('run-1', read)).toMatchObject({ uuid: 't-1' });
    expect(await sut.trigger('run-1', read)).toMatchObject({ uuid: 't-1' });
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('reads again where there was none, or it was large', async () => {
    const none = jest.fn(async () => null);
    await sut.trigger('run-1', none);
    await sut.trigger('run-1', none);
    expect(none).toHaveBeenCalledTimes(2);
    const large = jest.fn(async () => ({ ...output('t-2', 'run-2', 16 * 1024 + 1), created_at: new Date() }));
    await sut.trigger('run-2', large);
    await sut.trigger('run-2', large);
    expect(large).toHaveBeenCalledTimes(2);
  });

  it('keeps the runs used last past 256', async () => {
    const read = jest.fn(async () => ({ ...output('t'), created_at: new Date() }));
    for (let i = 0; i < 256; i++) await sut.trigger(`run-${i}`, read);
    await sut.trigger('run-0', read);
    await sut.trigger('run-256', read);
    read.mockClear();
    await sut.trigger('run-0', read);
    expect(read).not.toHaveBeenCalled();
    await sut.trigger('run-1', read);
    expect(read).toHaveBeenCalledTimes(1);
  });
});

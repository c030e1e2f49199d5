// A step's generated summary asked for on the real MySQL: once per source, and without one user's save failing
// another's (every save of a new step asks for its summary; two asking for new rows in one gap of the table's
// index used to deadlock, and the loser's POST /workflows answered 500).
import { randomUUID } from 'node:crypto';
import { StepSummaryRepository } from '@app/persistence';
import { newUserId } from '../support/fixtures';
import { startMedium, type MediumApp } from '../support/medium-app';

describe('step summaries', () => {
  let app: MediumApp;
  let summaries: StepSummaryRepository;

  beforeAll(async () => {
    app = await startMedium();
    summaries = app.get(StepSummaryRepository);
  });
  afterAll(() => app.close());

  it('are asked for once per source, and again for a new source or after one failed', async () => {
    const user = newUserId();
    const step = randomUUID();
    expect(await summaries.request(user, step, 'source-1')).toBe(true);
    expect(await summaries.request(user, step, 'source-1')).toBe(false);
    await summaries.complete(step, 'source-1', 'Summarises the input.');
    expect(await summaries.request(user, step, 'source-1')).toBe(false);
    expect(await summaries.request(user, step, 'source-2')).toBe(true);
    expect(await summaries.find([step])).toEqual([
      { step_uuid: step, source_hash: 'source-2', status: 'pending', summary: 'Summarises the input.', error_message: null },
    ]);
    await summaries.fail(step, 'source-2', 'the model refused');
    expect(await summaries.request(user, step, 'source-2')).toBe(true);
    expect((await summaries.find([step]))[0]).toMatchObject({ status: 'pending', error_message: null });
  });

  it("are asked for by many users' saves at once, none failing another's", async () => {
    const asked = Array.from({ length: 60 }, () => ({ user: newUserId(), step: randomUUID() }));
    const answers = await Promise.allSettled(asked.map(({ user, step }) => summaries.request(user, step, 'source')));
    expect(answers.filter((answer) => answer.status === 'rejected')).toEqual([]);
    expect(await summaries.find(asked.map(({ step }) => step))).toHaveLength(60);
  });
});

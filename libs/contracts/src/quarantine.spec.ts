import { isQuarantine, RUN_QUARANTINED } from './quarantine';

describe('isQuarantine', () => {
  // The shapes Temporal hands workflow code: an ActivityFailure whose cause is the activity's ApplicationFailure.
  const applicationFailure = (type: string) => Object.assign(new Error(`${type}: ...`), { type });
  const activityFailed = (cause: Error) => new Error('Activity task failed', { cause });

  it('finds a RUN_QUARANTINED application failure under the activity failure that carries it', () => {
    expect(isQuarantine(activityFailed(applicationFailure(RUN_QUARANTINED)))).toBe(true);
    expect(isQuarantine(applicationFailure(RUN_QUARANTINED))).toBe(true);
  });

  it('is false for any other failure, however deep, and for the code in a message only', () => {
    expect(isQuarantine(activityFailed(applicationFailure('InvalidStructuredOutput')))).toBe(false);
    expect(isQuarantine(activityFailed(new Error('RUN_QUARANTINED in a message only')))).toBe(false);
    expect(isQuarantine(new Error('plain'))).toBe(false);
    expect(isQuarantine(undefined)).toBe(false);
  });
});

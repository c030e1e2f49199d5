import { failureMessage } from './failure-message';

describe(failureMessage.name, () => {
  it('reads the innermost cause, through every wrapper', () => {
    const activity = new Error('model answered 400: no such model');
    const wrapped = new Error('Activity task failed', { cause: new Error('ApplicationFailure', { cause: activity }) });
    expect(failureMessage(wrapped)).toBe('model answered 400: no such model');
  });

  it('falls back on the error itself when the innermost has no message', () => {
    expect(failureMessage(new Error('outer', { cause: { code: 1 } }))).toBe('Error: outer');
    expect(failureMessage('boom')).toBe('boom');
  });
});

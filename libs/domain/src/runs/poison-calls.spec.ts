import { RUN_QUARANTINED } from '@app/contracts';
import { ErrorCode } from '../errors';
import { quarantineOf } from './poison-calls';

describe('quarantineOf', () => {
  const call = (died: number) => ({ what: 'the model call (turn 1)', died });

  it('lets a call go ahead while fewer of its attempts died with their worker than the limit', () => {
    expect([0, 1, 2].map((died) => quarantineOf(call(died), 3))).toEqual([null, null, null]);
  });

  it('refuses it with RUN_QUARANTINED from the limit on, naming the call, the deaths and the setting', () => {
    for (const died of [3, 4, 10]) {
      const refusal = quarantineOf(call(died), 3);
      expect(refusal).toMatchObject({ code: ErrorCode.RunQuarantined, details: { died_attempts: died, limit: 3 } });
      expect(refusal?.message).toMatch(
        new RegExp(
          `^RUN_QUARANTINED: the model call \\(turn 1\\) was in flight on ${died} workers that died \\(POISON_ATTEMPTS_LIMIT is 3\\)`,
        ),
      );
    }
  });

  it('stops a run at its first death with a limit of 1', () => {
    expect([0, 1].map((died) => quarantineOf(call(died), 1)?.code ?? null)).toEqual([null, ErrorCode.RunQuarantined]);
  });

  it('uses the failure type the workflow recognises as its code', () => {
    expect(ErrorCode.RunQuarantined).toBe(RUN_QUARANTINED);
  });
});

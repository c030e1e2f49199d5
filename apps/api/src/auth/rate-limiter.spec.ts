import { DomainError } from '@app/domain';
import { RateLimiter } from './rate-limiter';

describe(RateLimiter.name, () => {
  it('allows a burst, then a request as the allowance refills, and says when to come back', () => {
    let now = 0;
    const sut = new RateLimiter(60, 3, 'with this API key', () => now);
    for (let i = 0; i < 3; i++) sut.take('k');
    const refused = (() => {
      try {
        sut.take('k');
        return null;
      } catch (error) {
        return error as DomainError;
      }
    })();
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', details: { retry_after_seconds: 1 } });
    sut.take('other');
    now += 1000;
    expect(() => sut.take('k')).not.toThrow();
    expect(() => sut.take('k')).toThrow(DomainError);
  });
});

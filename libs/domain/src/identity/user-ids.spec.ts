import fc from 'fast-check';
import { ErrorCode } from '../errors';
import { assertUserIdDistinct, assertUserIdWellFormed, confusableForm } from './user-ids';

describe(assertUserIdDistinct.name, () => {
  it.each([
    ['alice', 'Alice'],
    ['alice', 'ALICE'],
    ['alicé', 'alice'],
    ['e\u0301', '\u00e9'],
    ['ｂｏｂ', 'bob'],
    ['strasse', 'STRAßE'],
    ['ﬁona', 'fiona'],
  ])('refuses %j while %j exists, naming the existing user', (given, existing) => {
    expect(() => assertUserIdDistinct(given, ['carol', existing])).toThrow(
      expect.objectContaining({ code: ErrorCode.UserIdConfusable, details: { field: 'user', existing } }),
    );
  });

  it('takes an id that exists exactly (another key for the same user), even beside a legacy look-alike', () => {
    expect(() => assertUserIdDistinct('alice', ['Alice', 'alice'])).not.toThrow();
  });

  it('takes ids that differ in more than case, accents or width', () => {
    expect(() => assertUserIdDistinct('alice2', ['alice', 'alic', 'bob'])).not.toThrow();
  });

  it('refuses every case variant of an existing id (property)', () => {
    const id = fc.stringMatching(/^[a-zA-Z0-9._-]{1,40}$/);
    fc.assert(
      fc.property(id, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (original, flips) => {
        const variant = [...original].map((char, i) => (flips[i] ? char.toUpperCase() : char.toLowerCase())).join('');
        if (variant === original) return;
        expect(() => assertUserIdDistinct(variant, [original])).toThrow(expect.objectContaining({ code: ErrorCode.UserIdConfusable }));
      }),
      { numRuns: 300, interruptAfterTimeLimit: 2000 },
    );
  });
});

describe(assertUserIdWellFormed.name, () => {
  it.each([[''], [' alice'], ['alice '], ['ali\u0000ce'], ['ali\u200bce'], ['a'.repeat(192)]])('refuses %j', (userId) => {
    expect(() => assertUserIdWellFormed(userId)).toThrow(
      expect.objectContaining({ code: ErrorCode.ValidationFailed, details: { field: 'user' } }),
    );
  });

  it.each([['alice'], ['Alice Smith'], ['user-1f0e'], ['ünïcödé'], ['a'.repeat(191)]])('takes %j', (userId) => {
    expect(() => assertUserIdWellFormed(userId)).not.toThrow();
  });
});

describe(confusableForm.name, () => {
  it('keeps ids that differ in letters apart', () => {
    expect(confusableForm('alice')).not.toBe(confusableForm('alicf'));
  });
});

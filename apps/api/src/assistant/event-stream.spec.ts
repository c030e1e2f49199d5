import { resumePoint } from './event-stream';

describe(resumePoint.name, () => {
  it('starts after Last-Event-ID, else after ?after=, else from the first event; anything else is refused (null)', () => {
    expect(resumePoint('7', '3')).toBe(7);
    expect(resumePoint(undefined, '3')).toBe(3);
    expect(resumePoint(undefined, undefined)).toBe(0);
    expect(['x', '-1', '1e3', '1234567890'].map((value) => resumePoint(value, undefined))).toEqual([null, null, null, null]);
  });
});

import { ErrorCode } from './errors';
import { errorOf } from './errors.testing';
import { isJsonObject, requireJsonObject } from './json-object';

describe(requireJsonObject.name, () => {
  it.each([null, undefined, [], [1], 'text', 3, true])('refuses %j as a body, on the field body', (value) => {
    expect(isJsonObject(value)).toBe(false);
    expect(errorOf(() => requireJsonObject(value))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      message: 'body must be a JSON object',
      details: { field: 'body' },
    });
  });

  it('gives the object itself back', () => {
    const body = { a: 1 };
    expect(requireJsonObject(body)).toBe(body);
  });

  it('names the field, says what the object holds, and takes another code', () => {
    const error = errorOf(() => requireJsonObject([], { field: 'workflow', holding: 'with steps', code: ErrorCode.ImportUnparseable }));
    expect(error).toMatchObject({
      code: ErrorCode.ImportUnparseable,
      message: 'workflow must be a JSON object with steps',
      details: { field: 'workflow' },
    });
  });

  it('refuses an object without its required key on that key, and a wrong shape there too', () => {
    const rule = { holding: 'with the answer in input', requiredKey: 'input' };
    expect(requireJsonObject({ input: null }, rule)).toEqual({ input: null });
    for (const body of [{ approved: true }, 'yes']) {
      expect(errorOf(() => requireJsonObject(body, rule))).toMatchObject({
        message: 'body must be a JSON object with the answer in input',
        details: { field: 'input' },
      });
    }
  });
});

import { parseJsonAnswer } from './json-answer';

describe(parseJsonAnswer.name, () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['Here you go:\n```json\n{"a": [1, 2]}\n```\nThanks', { a: [1, 2] }],
    ['The result is {"ok": true} as asked.', { ok: true }],
    ['[1, 2]', [1, 2]],
  ])('finds the JSON in %j', (text, expected) => {
    expect(parseJsonAnswer(text)).toEqual(expected);
  });

  it.each([['plain words'], ['"just a string"'], ['42'], [null]])('finds none in %j', (text) => {
    expect(parseJsonAnswer(text)).toBeUndefined();
  });
});

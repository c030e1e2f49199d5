import { checkStructuredAnswer, correctionMessage, NOT_JSON } from './structured-answer';

describe(checkStructuredAnswer.name, () => {
  const schema = {
    type: 'object',
    required: ['label', 'score'],
    properties: { label: { type: 'string' }, score: { type: 'number', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } },
  };

  it.each([
    ['bare JSON', '{"label": "spam", "score": 1}'],
    ['JSON in prose', 'Sure! Here it is: {"label": "spam", "score": 1} Hope that helps.'],
    ['a ```json fence', 'Result:\n```json\n{"label": "spam", "score": 1}\n```\n'],
    ['a bare ``` fence', '```\n{"label": "spam", "score": 1}\n```'],
  ])('accepts %s that follows the schema', (_case, text) => {
    expect(checkStructuredAnswer(text, schema)).toEqual({ ok: true, data: { label: 'spam', score: 1 } });
  });

  it.each([['plain words'], ['{"label": "spam", "score": }'], [''], [null]])('refuses %j as not JSON', (text) => {
    expect(checkStructuredAnswer(text, schema)).toEqual({ ok: false, errors: [NOT_JSON] });
  });

  it('lists every schema violation with its field path', () => {
    expect(checkStructuredAnswer('{"score": -1, "tags": ["a", 2]}', schema)).toEqual({
      ok: false,
      errors: ['label is required', 'score must be >= 0', 'tags[1] must be string'],
    });
  });

  it('names the root as $ when the answer has the wrong shape', () => {
    expect(checkStructuredAnswer('[1, 2]', schema)).toEqual({ ok: false, errors: ['$ must be object'] });
  });
});

describe(correctionMessage.name, () => {
  it('lists each problem on its own line and asks for the corrected JSON', () => {
    expect(correctionMessage(['label is required', 'score must be number'])).toBe(
      'Your answer does not follow the required JSON Schema:\n- label is required\n- score must be number\nAnswer again with only the corrected JSON, following the schema exactly.',
    );
  });
});

import type { ChatMessage } from '@app/contracts';
import { canonicalRequest, requestHash, type HashedModelRequest } from './request-hash';

describe('requestHash', () => {
  const weather = { name: 'weather', description: 'The weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
  const clock = { name: 'clock', description: 'The time', parameters: { type: 'object' } };
  const agentTurn = (id: string, args: string): ChatMessage[] => [
    { role: 'system', content: 'You help.' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id, name: 'weather', arguments: args }] },
    { role: 'tool', content: '{"sky":"clear"}', tool_call_id: id },
  ];
  const base: HashedModelRequest = {
    provider: 'openai',
    model: 'gpt-4o-mini',
    messages: agentTurn('call_abc', '{"city":"Paris","units":"metric"}'),
    tools: [weather, clock],
    response_format: null,
    temperature: 0.2,
    max_tokens: 500,
  };
  const sut = requestHash;

  it('is a sha256 in hex, the same for the same request', () => {
    expect(sut(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(sut(structuredClone(base))).toBe(sut(base));
  });

  it('ignores key order, absent vs null, an empty tool list, tool order, argument spacing and tool-call ids', () => {
    const same: HashedModelRequest = {
      max_tokens: 500,
      temperature: 0.2,
      tools: [{ parameters: clock.parameters, description: clock.description, name: 'clock' }, weather],
      messages: agentTurn('toolu_01XYZ', '{ "units": "metric",\n  "city": "Paris" }'),
      model: 'gpt-4o-mini',
      provider: 'openai',
    };
    expect(sut(same)).toBe(sut(base));
    const plain = { provider: 'openai', model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
    expect(sut({ ...plain, tools: [], response_format: undefined, temperature: null })).toBe(sut(plain));
  });

  it('changes with anything the provider is given', () => {
    const changed: HashedModelRequest[] = [
      { ...base, provider: 'anthropic' },
      { ...base, model: 'gpt-4o' },
      { ...base, messages: [{ role: 'system', content: 'You help!' }, ...base.messages.slice(1)] },
      { ...base, messages: agentTurn('call_abc', '{"city":"Lyon","units":"metric"}') },
      { ...base, messages: base.messages.slice(0, 3) },
      { ...base, tools: [weather] },
      { ...base, tools: [{ ...weather, description: 'Weather now' }, clock] },
      { ...base, response_format: { type: 'json_object' } },
      { ...base, temperature: 0.3 },
      { ...base, max_tokens: 501 },
    ];
    const hashes = new Set(changed.map(sut));
    expect(hashes.size).toBe(changed.length);
    expect(hashes.has(sut(base))).toBe(false);
  });

  it('keeps which answer goes with which call when ids are renumbered', () => {
    const twoCalls = (first: string, second: string, answers: [string, string]): HashedModelRequest => ({
      provider: 'openai',
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: first, name: 'weather', arguments: '{"city":"Paris"}' },
            { id: second, name: 'weather', arguments: '{"city":"Lyon"}' },
          ],
        },
        { role: 'tool', content: 'sunny', tool_call_id: answers[0] },
        { role: 'tool', content: 'rainy', tool_call_id: answers[1] },
      ],
    });
    expect(sut(twoCalls('a', 'b', ['a', 'b']))).toBe(sut(twoCalls('x', 'y', ['x', 'y'])));
    expect(sut(twoCalls('a', 'b', ['a', 'b']))).not.toBe(sut(twoCalls('a', 'b', ['b', 'a'])));
  });

  it('compares malformed arguments as written', () => {
    const withArgs = (args: string) => canonicalRequest({ ...base, messages: agentTurn('c', args) });
    expect(withArgs('{"city": Paris')).not.toBe(withArgs('{"city":Paris'));
    expect(withArgs('{"city": Paris')).toBe(withArgs('{"city": Paris'));
  });
});

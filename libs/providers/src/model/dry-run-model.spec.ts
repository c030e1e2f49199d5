import { DomainError, ErrorCode } from '@app/domain';
import { dryRunAnswer } from './dry-run-model';

describe(dryRunAnswer.name, () => {
  const tool = (name: string) => ({
    name,
    description: name,
    parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
  });

  it('calls each offered tool once (but get_output), then answers in the requested format, with no tokens', () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'go' }], tools: [tool('search'), tool('get_output')] };
    const first = dryRunAnswer(request, 0);
    expect(first).toMatchObject({ finish_reason: 'tool_calls', model: 'dry-run', usage: { total_tokens: 0 } });
    expect(first.message.tool_calls).toEqual([{ id: 'dry_run_0_0', name: 'search', arguments: '{"q":"dry run 0"}' }]);

    const answered = {
      ...request,
      messages: [...request.messages, first.message, { role: 'tool' as const, tool_call_id: 'dry_run_0_0', content: '{}' }],
    };
    const schema = { type: 'object', properties: { next: { enum: ['a', 'b'] } } };
    expect(
      JSON.parse(dryRunAnswer({ ...answered, response_format: { type: 'json_schema', name: 'out', schema } }, 1).message.content!),
    ).toEqual({ next: 'b' });
    expect(dryRunAnswer(answered, 2).message.content).toBe('Dry run 2: gpt-4o would answer here.');
  });

  it('refuses to make up a value past the example budget, naming what it was for, instead of building it', () => {
    const huge = { type: 'array', minItems: 1e9, items: { type: 'string', minLength: 1e9 } };
    const request = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'go' }],
      tools: [{ name: 'search', description: 'search', parameters: huge }],
    };
    expect(() => dryRunAnswer(request, 0)).toThrow(
      new DomainError(
        ErrorCode.SchemaTooLarge,
        "A dry run cannot make up arguments for search: the schema's smallest value passes 262144 bytes (EXAMPLE_MAX_BYTES)",
      ),
    );
    const answer = { ...request, tools: [], response_format: { type: 'json_schema' as const, name: 'out', schema: huge } };
    expect(() => dryRunAnswer(answer, 0)).toThrow(
      expect.objectContaining({
        code: ErrorCode.SchemaTooLarge,
        message: expect.stringMatching(/^A dry run cannot make up an answer to output_schema/),
      }),
    );
  });
});

import { randomUUID } from 'node:crypto';
import { candidateOf, checkCandidate, issuesFeedback } from './candidate';
import { clarificationContext, parseClarification, recentConversation } from './clarification';
import { definitionFingerprint, generationRequest, lastCorrection } from './generation';
import { SCHEMA_LIMITS } from '../definition/schema-bounds';
import { type DomainError, ErrorCode } from '../errors';
import { parseAssistantMessage } from './assistant-bodies';

const llm = (name: string, extra: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  type: 'custom_llm',
  name,
  model: 'm',
  system_prompt: 'p',
  ...extra,
});
const policy = { allowed: [], maxMaxTokens: 100_000 };

describe(recentConversation.name, () => {
  it("keeps the last exchanges, each a person's message and the answers to it", () => {
    const entries = Array.from({ length: 12 }, (_, i) => [
      { role: 'user' as const, text: `q${i}` },
      { role: 'assistant' as const, text: `a${i}` },
    ]).flat();
    const sut = recentConversation(entries, 10);
    expect(sut).toHaveLength(20);
    expect(sut[0]).toEqual({ role: 'user', content: 'q2' });
    expect(sut[19]).toEqual({ role: 'assistant', content: 'a11' });
    expect(recentConversation(entries.slice(0, 3), 10).map((m) => m.content)).toEqual(['q0', 'a0', 'q1']);
  });
});

describe(parseClarification.name, () => {
  it('reads a question, or ready (a question beside ready: true is dropped), and takes prose as a question', () => {
    expect(parseClarification('{"intent_summary": "x", "clarification_question": "Which?", "ready": false}')).toEqual({
      intent_summary: 'x',
      clarification_question: 'Which?',
    });
    expect(
      parseClarification('{"intent_summary": "x", "clarification_question": "Which?", "ready": true}').clarification_question,
    ).toBeNull();
    expect(parseClarification('Which language?')).toEqual({ intent_summary: '', clarification_question: 'Which language?' });
  });
});

describe(checkCandidate.name, () => {
  const known = new Set(['search']);
  const uuid = randomUUID();

  it('finds the JSON object in an answer, fenced or not', () => {
    expect(candidateOf('Here:\n```json\n{"name": "a"}\n```')).toEqual({ value: { name: 'a' } });
    expect(candidateOf('{"name": "b"}')).toEqual({ value: { name: 'b' } });
    expect(candidateOf('no json here')).toMatchObject({ issue: { field: 'body' } });
  });

  it('answers the definition under the target uuid when it is valid', () => {
    const sut = checkCandidate({ name: 'ok', steps: [llm('a')] }, uuid, policy, known, randomUUID);
    expect(sut).toMatchObject({ ok: true, definition: { uuid, name: 'ok', steps: [{ name: 'a' }] } });
  });

  it("names each issue with its field: the validator's, unknown tools, models not allowed, too many steps", () => {
    const agent = { uuid: randomUUID(), type: 'custom_agent', name: 'agent', model: 'm', system_prompt: 'p', tools: ['search', 'nope'] };
    const issues = (candidate: unknown, allowed: string[] = []) => {
      const sut = checkCandidate(candidate, uuid, { ...policy, allowed }, known, randomUUID);
      return sut.ok ? [] : sut.issues.map((issue) => `${issue.code} ${issue.field}`);
    };
    expect(issues({ name: 'x', steps: [llm('a', { system_prompt: `<<step_output.${randomUUID()}>>` })] })).toEqual([
      'UNKNOWN_STEP_REFERENCE steps[0].system_prompt',
    ]);
    expect(issues({ name: 'x', steps: [agent] })).toEqual(['UNKNOWN_TOOL steps[0].tools[1]']);
    expect(issues({ name: 'x', steps: [llm('a')] }, ['other'])).toEqual(['MODEL_NOT_ALLOWED steps[0].model']);
    expect(issues({ name: 'x', steps: Array.from({ length: 51 }, (_, i) => llm(`s${i}`)) })).toEqual(['VALIDATION_FAILED steps']);
    // ASSISTANT_MAX_STEPS lowered to 2.
    const three = { name: 'x', steps: [llm('a'), llm('b'), llm('c')] };
    expect(checkCandidate(three, uuid, policy, known, randomUUID, { maxSteps: 2, schema: SCHEMA_LIMITS })).toMatchObject({
      ok: false,
      issues: [{ field: 'steps', message: 'a workflow has at most 2 steps' }],
    });
    expect(issuesFeedback([{ code: 'UNKNOWN_TOOL' as never, field: 'steps[0].tools[1]', message: 'no tool' }])).toContain(
      '- UNKNOWN_TOOL at steps[0].tools[1]: no tool',
    );
  });
});

describe(generationRequest.name, () => {
  const definition = { uuid: 'w1', name: 'digest', steps: [{ name: 'summarise' }] };

  it('opens with the intent, then the workflow it starts from as it is now, then the attempt a failed turn left', () => {
    expect(generationRequest('Summarise', null)).toBe('What the workflow must do:\nSummarise');
    const edit = generationRequest('Add a step', { as: 'edit', workflow_uuid: 'w1', definition });
    expect(edit).toContain('Start from workflow w1 as it is now');
    expect(edit).toContain('your answer replaces it whole');
    expect(edit).toContain(JSON.stringify(definition));
    expect(generationRequest('Copy', { as: 'copy', workflow_uuid: 'w1', definition })).toContain(
      'saved as a new workflow, so give new uuids',
    );
    const failed = generationRequest('Summarise', null, { candidate: { name: 'bad' }, problems: 'it broke' });
    expect(failed.split('\n\n')).toEqual([
      'What the workflow must do:\nSummarise',
      'Your last attempt was not saved: it broke\nGo on from it (below) with what the person said since, and fix those problems:\n{"name":"bad"}',
    ]);
  });
});

describe(definitionFingerprint.name, () => {
  it('is the same for the same definition whatever its key order, and differs for any change', () => {
    expect(definitionFingerprint({ a: 1, b: { c: [1, 2] } })).toBe(definitionFingerprint({ b: { c: [1, 2] }, a: 1 }));
    expect(definitionFingerprint({ a: 1, b: { c: [1, 2] } })).not.toBe(definitionFingerprint({ a: 1, b: { c: [2, 1] } }));
    expect(definitionFingerprint({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe(lastCorrection.name, () => {
  it('answers the correction a generation ended on, and nothing when it ended on the model or its opening', () => {
    const opening = [
      { role: 'system' as const, content: 'p' },
      { role: 'user' as const, content: 'request' },
    ];
    expect(lastCorrection(opening)).toBeNull();
    expect(lastCorrection([...opening, { role: 'assistant', content: '{}' }])).toBeNull();
    expect(lastCorrection([...opening, { role: 'assistant', content: '{}' }, { role: 'user', content: 'fix it' }])).toBe('fix it');
  });
});

describe(clarificationContext.name, () => {
  it('tells the clarifier when the person is changing a saved workflow, and when the last attempt failed', () => {
    expect(clarificationContext('', false, false)).toContain('(nothing yet)');
    expect(clarificationContext('x', true, false)).toContain('The workflow has been saved');
    expect(clarificationContext('x', false, true)).toContain('The last attempt to write the workflow failed');
    expect(clarificationContext('x', false, false)).not.toMatch(/saved|failed/);
  });
});

describe(parseAssistantMessage.name, () => {
  const refusal = (body: unknown, max: number) => {
    try {
      parseAssistantMessage(body, max);
    } catch (error) {
      return error as DomainError;
    }
    throw new Error('accepted');
  };

  it('takes a message of up to the limit in characters, a pair of UTF-16 units counting as one', () => {
    expect(parseAssistantMessage({ text: 'abc' }, 3)).toBe('abc');
    expect(parseAssistantMessage({ text: '😀😀😀' }, 3)).toBe('😀😀😀');
  });

  it('refuses one character more with VALIDATION_FAILED naming text and the limit', () => {
    for (const text of ['abcd', '😀😀😀a', 'x'.repeat(1_000_000)]) {
      expect(refusal({ text }, 3)).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field: 'text', max_chars: 3 } });
    }
  });

  it('refuses a blank or missing text as before, naming it', () => {
    expect(refusal({ text: '   ' }, 3)).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field: 'text' } });
    expect(refusal(undefined, 3)).toMatchObject({ code: ErrorCode.ValidationFailed, details: { field: 'text' } });
  });
});

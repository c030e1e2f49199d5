import { replyTextOf } from './reply-text';

describe('replyTextOf', () => {
  it('answers text as it is, a text field of an object, else the JSON', () => {
    expect(replyTextOf('Hello')).toBe('Hello');
    expect(replyTextOf({ next: 'END', reply: 'Bye' })).toBe('Bye');
    expect(replyTextOf({ text: 'Hi', content: 'no' })).toBe('Hi');
    expect(replyTextOf({ next: 'Worker' })).toBe('{"next":"Worker"}');
    expect(replyTextOf(null)).toBeNull();
  });
});

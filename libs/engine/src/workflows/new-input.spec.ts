import { newInputTracker } from './new-input';

describe('newInputTracker (the repeated-input guard rail)', () => {
  it('lets a cycle go round while outputs change, and stops a step whose input is what it already answered', () => {
    const news = newInputTracker();
    const round = (ping: string, pong: string) => {
      const pingRuns = news.hasNewInput('ping');
      if (pingRuns) news.outputOf('ping', ping);
      const pongRuns = news.hasNewInput('pong');
      if (pongRuns) news.outputOf('pong', pong);
      return [pingRuns, pongRuns];
    };
    expect(round('a', 'b')).toEqual([true, true]);
    expect(round('a2', 'b')).toEqual([true, true]); // pong's b was new to ping, ping's a2 new to pong
    expect(round('a2', 'b')).toEqual([false, false]); // pong answered b again: ping would run on what it already answered
  });

  it('stops a step that would answer an unchanged output a second time', () => {
    const news = newInputTracker();
    for (const [step, output] of [
      ['ping', 'a'],
      ['pong', 'b'],
    ]) {
      expect(news.hasNewInput(step)).toBe(true);
      news.outputOf(step, output);
    }
    expect(news.hasNewInput('ping')).toBe(true); // pong's b is new to ping
    news.outputOf('ping', 'a');
    expect(news.hasNewInput('pong')).toBe(false); // ping said a again
  });

  it('counts an output without a digest as new, and forgets what steps saw when told', () => {
    const news = newInputTracker();
    expect(news.hasNewInput('s')).toBe(true);
    news.outputOf('s', undefined);
    news.outputOf('other', 'x');
    expect(news.hasNewInput('s')).toBe(true);
    news.outputOf('s', undefined); // no digest: taken as changed
    expect(news.hasNewInput('other')).toBe(true);
    expect(news.hasNewInput('other')).toBe(false);
    news.forget(); // a new message, or a person's decision
    expect(news.hasNewInput('s')).toBe(true);
  });

  it('keeps an output that changed while a step ran new to that step, whichever finished first', () => {
    for (const joinFirst of [true, false]) {
      const news = newInputTracker();
      news.outputOf('b', 'b');
      expect(news.hasNewInput('join')).toBe(true); // join (from b) and e run side by side
      news.starts('join');
      news.starts('e');
      if (joinFirst) news.outputOf('join', 'j');
      news.outputOf('e', 'e');
      if (!joinFirst) news.outputOf('join', 'j');
      expect(news.hasNewInput('join')).toBe(true); // e's output arrived after join had read its input
      news.starts('join');
      news.outputOf('join', 'j');
      expect(news.hasNewInput('join')).toBe(false);
    }
  });

  it('keeps the recorded behaviour where the workflow says so (a run from before the fix)', () => {
    const asRecorded = jest.fn(() => false);
    const news = newInputTracker(asRecorded);
    news.starts('join');
    news.outputOf('join', 'j'); // nothing changed while join ran: no question asked
    news.starts('join');
    news.starts('e');
    news.outputOf('e', 'e');
    expect(asRecorded).not.toHaveBeenCalled();
    news.outputOf('join', 'j2');
    expect(asRecorded).toHaveBeenCalledTimes(1);
    expect(news.hasNewInput('join')).toBe(false); // as before: e's output counted as seen
  });
});

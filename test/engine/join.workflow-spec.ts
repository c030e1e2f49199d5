// A graph step where branches meet: `join: "any"` (the default) runs it after each branch that reaches it,
// wave by wave; `join: "all"` waits until no branch still running can reach it, then runs it once, its
// $previous_output the last branch to arrive. A branch that was never taken, or failed, is not waited for.
import { setTimeout as sleep } from 'node:timers/promises';
import type { StepDefinition } from '@app/contracts';
import { edge, graphRun, llmStep, output } from './support/definitions';
import { useEngine } from './support/engine';
import { FakeActivities, llmAnswers, runEnd } from './support/fake-activities';

describe('Run workflow: joins', () => {
  const engine = useEngine();
  const ran = (fake: FakeActivities) => fake.inputsOf('runLlmStep').map((input) => input.step.name);

  /** a fans out to a short branch (b) and a long one (c → e), both ending in `join`. */
  const fanOut = (join: StepDefinition) => {
    const [a, b, c, e] = ['a', 'b', 'c', 'e'].map((name) => llmStep(name));
    const run = graphRun([a, b, c, e, join], {
      edges: [edge(a, b), edge(a, c), edge(b, join), edge(c, e), edge(e, join), edge(join, null)],
    });
    return { run, steps: { a, b, c, e } };
  };
  const answers = (fail: string[] = []) =>
    llmAnswers(
      Object.fromEntries(
        ['a', 'b', 'c', 'e', 'join'].map((name) => [
          name,
          () => {
            if (fail.includes(name)) throw new Error(`${name} broke`);
            return output();
          },
        ]),
      ),
    );

  it('join "all": runs once, after the longer branch, with the last branch’s output as $previous_output', async () => {
    const join = llmStep('join', { join: 'all' });
    const { run, steps } = fanOut(join);
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: answers() });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(ran(fake).sort()).toEqual(['a', 'b', 'c', 'e', 'join']);
    expect(ran(fake).at(-1)).toBe('join');
    expect(fake.inputsOf('runLlmStep').find((input) => input.step.name === 'join')!.previous_step_uuid).toBe(steps.e.uuid);
  });

  it('join "any" (the default): runs after each branch that reaches it', async () => {
    const { run } = fanOut(llmStep('join'));
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: answers() });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(ran(fake).filter((name) => name === 'join')).toHaveLength(2);
  });

  it.each([
    ['join', 'the other branch finished while join ran'],
    ['e', 'join finished first'],
  ])('join "any": runs again for the longer branch when %s is slow (%s)', async (slow) => {
    const { run } = fanOut(llmStep('join'));
    const answer = async (input: { step: { name: string } }, nth: number) => {
      if (input.step.name === slow && nth === 1) await sleep(400);
      return output();
    };
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: llmAnswers({ a: answer, b: answer, c: answer, e: answer, join: answer }) });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(ran(fake).filter((name) => name === 'join')).toHaveLength(2);
  });

  it('join "all": a branch that failed is not waited for', async () => {
    const join = llmStep('join', { join: 'all' });
    const { run, steps } = fanOut(join);
    const fake = new FakeActivities({ ...runEnd(), runLlmStep: answers(['e']) });

    const sut = await engine.start(run, fake);

    await expect(sut.failure()).resolves.toMatchObject({ message: 'Step "e" failed: e broke' });
    expect(fake.inputsOf('runLlmStep').find((input) => input.step.name === 'join')!.previous_step_uuid).toBe(steps.b.uuid);
    expect(ran(fake).filter((name) => name === 'join')).toHaveLength(1);
  });

  it('join "all": a branch whose route was not taken is not waited for', async () => {
    const join = llmStep('join', { join: 'all' });
    const [router, b, c] = ['router', 'b', 'c'].map((name) => llmStep(name));
    const run = graphRun([router, b, c, join], {
      edges: [
        edge(router, b, { condition_value: 'b' }),
        edge(router, c, { condition_value: 'c' }),
        edge(b, join),
        edge(c, join),
        edge(join, null),
      ],
    });
    const fake = new FakeActivities({
      ...runEnd(),
      runLlmStep: llmAnswers({ router: () => output({ route: 'b' }), b: () => output(), join: () => output() }),
    });

    const sut = await engine.start(run, fake);

    await expect(sut.result()).resolves.toEqual({ status: 'completed', error_message: null });
    expect(ran(fake)).toEqual(['router', 'b', 'join']);
  });
});

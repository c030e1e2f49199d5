// The assistant's page in a real headless browser (Debian's chromium driven by puppeteer-core): a person
// pastes a key, asks, sees the question stream in, answers, and sees the workflow saved with a link to run
// it; then asks for a change and sees the same workflow edited.
import type { Browser, Page } from 'puppeteer-core';
import { chainCandidate, clarifier } from './support/assistant';
import { launchChromium } from './support/chromium';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';

describe('The assistant page', () => {
  let stack: Stack;
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;

  // Registered before the stack's hooks, so the browser (and its keep-alive connections) goes first.
  beforeAll(async () => {
    ({ browser, close: closeBrowser } = await launchChromium());
  });
  afterAll(async () => {
    await closeBrowser?.();
  });
  useStack((started) => (stack = started));

  const texts = (page: Page, selector: string) => page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ''));
  async function waitForText(page: Page, selector: string, text: string): Promise<void> {
    for (const deadline = Date.now() + 30_000; !(await texts(page, selector)).some((shown) => shown.includes(text));) {
      if (Date.now() > deadline) throw new Error(`no ${selector} shows ${text}: ${JSON.stringify(await texts(page, '#log > div'))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.waitForSelector('#send:not([disabled])');
    await page.type('#message', text);
    await page.keyboard.press('Enter');
  }

  it('streams the question, then the stages and the saved workflow, whose link runs it', async () => {
    const page = await browser.newPage();
    await page.goto(stack.api.baseUrl.replace('/api/v1', '/assistant'));
    await page.type('#key', stack.user.key!);
    await page.click('#begin');

    stack.model.script(clarifier.asks('Which language should the summary be in?'));
    await send(page, 'Summarise the articles I send');
    await waitForText(page, '#log .assistant', 'Which language should the summary be in?');

    const candidate = chainCandidate();
    stack.model.script(clarifier.ready(), reply.json(candidate));
    await send(page, 'English');
    await waitForText(page, '#workflow-name', '(saved)');

    expect(await texts(page, '#log > div')).toEqual([
      expect.stringMatching(/^session .* started$/),
      'you: Summarise the articles I send',
      'assistant: Which language should the summary be in?',
      'you: English',
      ...['workflow_generation', 'validation', 'dry_run', 'saving', 'completed'].map((stage) => `stage: ${stage}`),
    ]);
    expect(await texts(page, '#stages .current')).toEqual(['completed']);
    expect(await texts(page, '#workflow-name')).toEqual([`${candidate.name} (saved)`]);
    expect(await texts(page, '#steps li')).toEqual(['summarise — custom_llm', 'translate — custom_llm']);
    expect(await texts(page, '#edges li')).toEqual(['summarise → translate']);

    stack.model.script(reply.text('a summary'), reply.text('une traduction'));
    await page.click('#run');
    await waitForText(page, '#run-status', 'run ');
    const runUuid = /run ([0-9a-f-]{36})/.exec((await texts(page, '#run-status'))[0])![1];
    expect((await stack.waitForRun(runUuid)).status).toBe('completed');
    await page.close();
  });

  it('goes on after the save: "add a step" shows the same workflow edited, with its new step', async () => {
    const page = await browser.newPage();
    await page.goto(stack.api.baseUrl.replace('/api/v1', '/assistant'));
    await page.type('#key', stack.user.key!);
    await page.click('#begin');
    const candidate = chainCandidate();
    stack.model.script(clarifier.ready(), reply.json(candidate));
    await send(page, 'Summarise the articles I send, then translate the summary');
    await waitForText(page, '#workflow-name', '(saved)');
    const uuid = await page.$eval('#run', (link) => link.getAttribute('data-workflow'));
    expect(await page.$eval('#message', (input) => input.getAttribute('placeholder'))).toBe(`Ask for a change to ${candidate.name}`);

    const shorten = llmStep({ name: 'shorten', system_prompt: `Shorten <<step_output.${candidate.steps[1].uuid}>>` });
    stack.model.script(
      clarifier.ready('Summarise, translate, then shorten'),
      reply.json({ ...candidate, steps: [...candidate.steps, shorten] }),
    );
    await send(page, 'add a step that shortens the translation');
    await waitForText(page, '#workflow-name', '(saved, edited)');

    expect(await texts(page, '#steps li')).toEqual(['summarise — custom_llm', 'translate — custom_llm', 'shorten — custom_llm']);
    expect(await texts(page, '#edges li')).toEqual(['summarise → translate', 'translate → shorten']);
    expect(await page.$eval('#run', (link) => link.getAttribute('data-workflow'))).toBe(uuid);
    expect((await texts(page, '#log > div')).slice(-7)).toEqual([
      'you: add a step that shortens the translation',
      ...['clarification', 'workflow_generation', 'validation', 'dry_run', 'saving', 'completed'].map((stage) => `stage: ${stage}`),
    ]);
    expect((await stack.user.get(`/workflows/${uuid}/details`)).body.steps.map((step: { name: string }) => step.name)).toEqual([
      'summarise',
      'translate',
      'shorten',
    ]);
    expect(await page.$eval('#send', (button) => button.hasAttribute('disabled'))).toBe(false);
    await page.close();
  });
});

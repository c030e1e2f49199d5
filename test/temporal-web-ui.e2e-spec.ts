// The Temporal Web UI shows a run's payloads decoded for their owner, as a person opens it: the API's
// /temporal-ui page takes the key once (the codec cookie), then the UI (the server npm start runs, with npm
// start's settings and with those docker compose gives the temporalio/ui image) shows the run's input (its definition, with the step's prompt) and the step summaries in
// Debian's Chromium; another user's browser sees them sealed, and so does the temporal CLI with another
// user's key. (A run's trigger data and answers stay in MySQL: Temporal carries references to them.)
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'puppeteer-core';
import { launchChromium } from './support/chromium';
import { llmStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { TemporalUiServer, type UiSettings } from './support/temporal-ui-server';
import type { ApiClient } from './support/api';
import type { RunView } from './support/views';

const BANNER = 'Codec Server could not connect';
/** How the UI shows a payload's encoding it could not decode: the metadata value in base64. */
const SEALED = Buffer.from('binary/encrypted').toString('base64');

it("docker compose's UI sends the browser's cookie to the codec endpoint, as the spec below runs it", () => {
  const compose = readFileSync(path.join(__dirname, '..', 'docker-compose.yml'), 'utf8');
  expect(compose).toMatch(/image: temporalio\/ui:2\.42\.1\n/);
  expect(compose).toMatch(/TEMPORAL_CODEC_INCLUDE_CREDENTIALS: "true"/);
});

describe.each<UiSettings>(['npm start', 'docker compose'])('The Temporal Web UI with the settings of %s', (settings) => {
  const marker = `PROMPT-MARKER-${randomUUID().slice(0, 8)}`;
  const summary = 'write (custom_llm)';
  let uiUrl: string;
  let ui: TemporalUiServer;
  let stack: Stack;
  let stranger: ApiClient;
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;
  let run: RunView;

  beforeAll(async () => {
    uiUrl = await TemporalUiServer.reserveUrl();
    ({ browser, close: closeBrowser } = await launchChromium());
  });
  afterAll(async () => {
    await closeBrowser?.();
    await ui?.stop();
  });
  useStack(
    (started) => (stack = started),
    () => ({ webUiUrl: uiUrl }),
  );
  beforeAll(async () => {
    ui = await TemporalUiServer.start(settings, uiUrl, `${stack.api.baseUrl}/temporal-codec`);
    stranger = await stack.api.newUser();
    stack.model.script(reply.text('written'));
    const workflow = await stack.createWorkflow([llmStep({ name: 'write', system_prompt: `${marker}: write` })]);
    run = await stack.startRun(workflow.uuid);
    expect((await stack.waitForRun(run.uuid)).status).toBe('completed');
  });

  /** What a person does: the page from the run's view, the key typed once, and on to the UI's page of the run. */
  async function openRunAs(key: string): Promise<Page> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    // Tall enough that the UI's editors render the whole input rather than its first lines.
    await page.setViewport({ width: 1400, height: 2400 });
    await page.goto(`${stack.api.baseUrl.replace('/api/v1', '')}${run.temporal.open_in_ui_path}`);
    await page.type('#key', key);
    await Promise.all([page.waitForNavigation(), page.click('#go')]);
    expect(page.url()).toBe(run.temporal.ui_url);
    return page;
  }

  // Strings, not functions: they run in the page, whose DOM types this project does not compile against.
  const bodyText = (page: Page) => page.evaluate('document.body.innerText') as Promise<string>;
  const showText = (page: Page, text: string) =>
    page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, { timeout: 30_000 });

  it("shows the owner the run's input and its steps' summaries decoded, without the codec banner", async () => {
    const page = await openRunAs(stack.user.key!);
    await showText(page, marker).catch(async (error: Error) => {
      throw new Error(`${error.message}; the page shows: ${(await bodyText(page)).slice(0, 2000)}`);
    });
    const shown = await bodyText(page);
    expect(shown).toContain(summary);
    expect(shown).not.toContain(BANNER);
    await page.browserContext().close();
  });

  it("keeps the run sealed in another user's browser", async () => {
    const page = await openRunAs(stranger.key!);
    // The UI asks the codec, which answers the payloads as they were sent: still encrypted.
    await page.waitForResponse((response) => response.url().endsWith('/temporal-codec/decode') && response.ok(), { timeout: 30_000 });
    await showText(page, SEALED);
    expect(await bodyText(page)).not.toContain(marker);
    expect(await bodyText(page)).not.toContain(summary);
    await page.browserContext().close();
  });

  it("decodes for the temporal CLI given the owner's key, and for no one else", async () => {
    const show = async (key: string) => {
      const args = [
        'workflow',
        'show',
        '--address',
        process.env.TEMPORAL_ADDRESS!,
        '-w',
        run.temporal.workflow_id,
        '--codec-endpoint',
        `${stack.api.baseUrl}/temporal-codec`,
        '--codec-auth',
        `Bearer ${key}`,
        '-o',
        'json',
      ];
      const { stdout } = await promisify(execFile)(process.env.TEMPORAL_CLI_PATH!, args, { maxBuffer: 16 * 1024 * 1024 });
      // Its JSON gives each payload's data in base64.
      return [...stdout.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)]
        .map(([, data]) => Buffer.from(data, 'base64').toString('utf8'))
        .join('\n');
    };
    expect(await show(stack.user.key!)).toContain(marker);
    expect(await show(stranger.key!)).not.toContain(marker);
  });
});

// Debian's Chromium, headless, driven by puppeteer-core (which downloads no browser): npm test installs it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

const CHROMIUM = '/usr/bin/chromium';

/** A browser with a profile of its own; `close` ends it and removes the profile. */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'stepwise-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
  ];
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

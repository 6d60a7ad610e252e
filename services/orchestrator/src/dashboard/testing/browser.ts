/**
 * A real headless browser for the dashboard's tests: Playwright (`playwright-core`, which
 * downloads nothing) driving Debian's chromium, installed when missing. Each test gets a fresh
 * context (its own cookies); when a test fails, a screenshot of its page is kept under
 * `.data/test-artifacts/` and its path printed.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '@switchyard/redis';
import { ensureChromium } from './chromium.js';

export const ARTIFACTS_DIR = path.join(REPO_ROOT, '.data', 'test-artifacts');

// The machine reaches package registries only: nothing in the background may try the network.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Launches chromium headless; Playwright gives it a fresh user-data-dir of its own. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureChromium(), headless: true, args: FLAGS, timeout: 60_000 });
}

/**
 * Runs `body` with a page of a fresh context (no cookies). When `body` throws, a screenshot of the
 * page is written and its path printed before the error goes on.
 */
export async function withPage(t: TestContext, browser: Browser, body: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  try {
    await body(page);
  } catch (error) {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const file = path.join(ARTIFACTS_DIR, `${t.name.replace(/[^\w-]+/g, '-').slice(0, 80)}.png`);
    await page.screenshot({ path: file, fullPage: true }).then(
      () => process.stderr.write(`screenshot of the failed test's page: ${path.relative(process.cwd(), file)}\n`),
      (shot: unknown) => process.stderr.write(`no screenshot: ${String(shot)}\n`),
    );
    throw error;
  } finally {
    await context.close();
  }
}

/** Opens the dashboard and gives it `key` through its form. */
export async function signIn(page: Page, options: { url: string; key: string }): Promise<void> {
  await page.goto(options.url);
  await page.getByLabel('API key').fill(options.key);
  await page.getByRole('button', { name: 'Open dashboard' }).click();
}

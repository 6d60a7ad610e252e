/**
 * The API reference page (`/docs`, Swagger UI) and the dashboard under their
 * Content-Security-Policy, in a real headless browser: each page works, and the browser reports
 * no violation of its policy (a violation would mean the page lost something it uses).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { launchBrowser, signIn, withPage } from './testing/browser.js';

let stack: TestStack;
let browser: Browser;
before(async () => {
  [stack, browser] = await Promise.all([startTestStack({ label: 'docs-page', inProcessWorkers: false }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

/** Every CSP violation the page reports, from the console and from `securitypolicyviolation` events. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
  await page.exposeFunction('reportViolation', (line: string) => violations.push(`event: ${line}`));
  // Runs in the page (as text: this file is not compiled for the DOM).
  await page.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' blocked ' + e.blockedURI));" });
  return violations;
}

test('/docs answers with a Content-Security-Policy that allows scripts of this server only, and no inline script', async () => {
  const res = await fetch(`${stack.api.url}/docs`);
  const csp = res.headers.get('content-security-policy') ?? '';
  const html = await res.text();
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'no unsafe-inline, no unsafe-eval');
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(html, /<script>/, 'no inline script');
  const init = await fetch(`${stack.api.url}/docs/init.js`);
  assert.equal(init.status, 200);
  assert.match(init.headers.get('content-type') ?? '', /javascript/);
  assert.match(await init.text(), /SwaggerUIBundle\(\{ url: '\/openapi\.json'/);
});

test('/docs renders every operation of the document in the browser with no CSP violation', async (t) => {
  const document = (await (await fetch(`${stack.api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
  // Swagger UI shows an operation once under each of its tags.
  const blocks = Object.values(document.paths).flatMap((item) => Object.values(item)).reduce((n, operation) => n + (operation.tags?.length ?? 1), 0);
  await withPage(t, browser, async (page) => {
    const violations = await watchViolations(page);
    await page.goto(`${stack.api.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    assert.equal(await page.locator('.opblock').count(), blocks, 'one block per operation and tag');
    // Opening an operation renders its parameters, responses and schemas (examples as images, styles from script).
    await page.locator('.opblock-summary', { hasText: '/v1/stories' }).first().click();
    await page.locator('.opblock-body .responses-table').first().waitFor();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.locator('.modal-ux').waitFor();
    await page.locator('.modal-ux .close-modal').click();
    // *Try it out* calls this server from the page (connect-src).
    const health = page.locator('.opblock', { has: page.locator('.opblock-summary-path', { hasText: /^\/health$/ }) });
    await health.locator('.opblock-summary').click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    await health.getByRole('button', { name: 'Execute' }).click();
    await health.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
    assert.deepEqual(violations, []);
  });
});

test('the dashboard, signed in, shows its runs with no CSP violation', async (t) => {
  await withPage(t, browser, async (page) => {
    const violations = await watchViolations(page);
    await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    assert.deepEqual(violations, []);
  });
});

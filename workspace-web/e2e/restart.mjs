// Browser test of the administrator's restart (issue 22): headless Chromium driven by playwright-core against the
// packaged server running as its own process (started by the Java test RestartBrowserIT, which plays the launcher:
// an exit with status 42 starts the server again on the same port and data folder). Presses Restart on the System
// page and sees the page wait, notice the new process on /health and reload itself, still signed in, showing the
// version. Exits non-zero on the first failure; screenshots go to AW_E2E_SHOTS.
//
// env: AW_E2E_URL (server), AW_E2E_SHOTS (folder), AW_CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const shots = process.env.AW_E2E_SHOTS ?? 'target/restart-e2e';
const user = 'admin';
const password = 'a long e2e password';
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let step = '';
const t0 = Date.now();
function log(s) {
  step = s;
  console.log(`[restart-e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
}
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
async function health() {
  const r = await fetch(base + '/health', { cache: 'no-store' });
  return r.json();
}

const browser = await chromium.launch({
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const problems = [];

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const shot = (name) => page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true });

  log('setup, then the System page shows the version');
  await page.goto(base + '/');
  await page.getByRole('heading', { name: 'Set up Agent Workspace' }).waitFor();
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Repeat password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  await page.goto(base + '/settings/system');
  const before = await health();
  check(before.startedAt, `/health says when the server started: ${JSON.stringify(before)}`);
  await page.getByText(`Version ${before.version}`).waitFor();
  await shot('01-system');

  log('Restart: the page waits for the server and reloads itself once the new process answers');
  // a mark that only this document holds: gone once the page has reloaded
  await page.evaluate(() => { window.__awBeforeRestart = true; });
  page.once('dialog', (d) => d.accept());
  const reloaded = page.waitForEvent('load', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Restart' }).click();
  await page.getByRole('status').filter({ hasText: /Restarting|restarting|Reloading/ }).waitFor();
  await shot('02-waiting');
  await reloaded;
  const after = await health();
  check(after.startedAt !== before.startedAt, `another process answers /health (${before.startedAt} → ${after.startedAt})`);
  check(await page.evaluate(() => window.__awBeforeRestart === undefined), 'the page reloaded itself');
  check(new URL(page.url()).pathname === '/settings/system', `the reload stays on the System page (${page.url()})`);

  log('after the reload: still signed in, the version shown');
  await page.getByText(`Version ${after.version}`).waitFor({ timeout: 30_000 });
  await page.getByRole('navigation', { name: 'Settings pages' }).getByRole('link', { name: 'System', exact: true }).waitFor();
  check(await page.getByRole('heading', { name: 'Sign in' }).count() === 0, 'no sign-in screen');
  const status = await page.evaluate(() => fetch('/api/auth/status').then((r) => r.json()));
  check(status.isAuthenticated && status.user?.username === user, `the session cookie still works: ${JSON.stringify(status)}`);
  await shot('03-back');
  const result = await page.evaluate(`${axeSource}; axe.run(document, { resultTypes: ['violations'] })`);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(bad.length === 0, `no serious accessibility violation: ${bad.map((v) => v.id).join(', ')}`);

  check(problems.length === 0, `no CSP violation or page error: ${problems.join(' | ')}`);
  console.log(`restart-e2e: all steps passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await browser.close();
  process.exit(0);
} catch (e) {
  console.error(`restart-e2e FAILED at step "${step}": ${e.stack ?? e}`);
  if (problems.length) console.error('problems seen: ' + problems.join(' | '));
  try {
    const pages = browser.contexts().flatMap((c) => c.pages());
    for (const [i, p] of pages.entries()) await p.screenshot({ path: path.join(shots, `failure-${i}.png`), fullPage: true });
  } catch {
    /* best effort */
  }
  await browser.close();
  process.exit(1);
}

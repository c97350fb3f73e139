// The web UI's budgets (docs/benchmarks.md "Web UI"), measured in headless Chromium against a server holding a
// ~5,000-message session ("Huge session"; WebUiBrowserIT with -Daw.e2e.hold writes it) and the fake gemini CLI.
// env: AW_E2E_URL, AW_E2E_USER/AW_E2E_PASSWORD (an existing account), AW_CHROMIUM. Prints one JSON document.
import { chromium } from 'playwright-core';
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const user = process.env.AW_E2E_USER ?? 'admin';
const password = process.env.AW_E2E_PASSWORD ?? 'a long e2e password';
const out = {};

// 1. initial JavaScript: what index.html loads (the entry chunk), gzip -9; the lazy chunks separately
const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const gz = (f) => gzipSync(readFileSync(path.join(dist, f)), { level: 9 }).length;
out.initialJsGzipBytes = initial.filter((f) => f.endsWith('.js')).reduce((a, f) => a + gz(f), 0);
out.initialCssGzipBytes = initial.filter((f) => f.endsWith('.css')).reduce((a, f) => a + gz(f), 0);
out.lazyChunksGzipBytes = Object.fromEntries(readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js') && !initial.includes('assets/' + f)).map((f) => [f.replace(/-[^-]+\.js$/, ''), gz('assets/' + f)]));

const browser = await chromium.launch({
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await ctx.newPage();
await page.goto(base + '/');
await page.getByLabel('Username').fill(user);
await page.getByLabel('Password').fill(password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('navigation', { name: 'Projects' }).waitFor();

const cdp = await ctx.newCDPSession(page);
await page.addInitScript(() => {
  window.__longTasks = [];
  window.__longFrames = [];
  new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push(e.duration))).observe({ type: 'longtask', buffered: true });
  // what a long task was made of: long animation frames (over 50 ms) with their scripts (Chromium's LoAF API)
  try {
    new PerformanceObserver((l) => l.getEntries().forEach((e) => {
      if (e.duration <= 50) return;
      window.__longFrames.push({
        ms: Math.round(e.duration), blockingMs: Math.round(e.blockingDuration),
        renderMs: Math.round(e.renderStart ? e.startTime + e.duration - e.renderStart : 0),
        styleLayoutMs: Math.round(e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0),
        scripts: e.scripts.map((s) => ({ invoker: s.invoker, fn: s.sourceFunctionName, src: (s.sourceURL || '').replace(/^.*\//, '') + ':' + s.sourceCharPosition, ms: Math.round(s.duration), forcedLayoutMs: Math.round(s.forcedStyleAndLayoutDuration) })),
      });
    })).observe({ type: 'long-animation-frame', buffered: true });
  } catch { /* not supported */ }
});

// 2. the project list drawn after a navigation, CPU throttled 4x
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
let t = Date.now();
await page.goto(base + '/');
await page.locator('.projects .project').first().waitFor();
out.projectListMs4xCpu = Date.now() - t;
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });

// 3. the 5,000-message session: open, then scroll from the end to the top through every page
await page.getByRole('button', { name: /bench-project/ }).first().click();
t = Date.now();
await page.getByRole('link', { name: /Huge session/ }).click();
await page.locator('.msg-assistant').first().waitFor();
out.hugeSessionOpenMs = Date.now() - t;
out.hugeSessionMessages = await page.evaluate(async () => {
  const r = await fetch(location.pathname.replace(/^\/projects\/([^/]+)\/sessions\/([^/?]+).*/, '/api/sessions/$2/messages?projectName=$1&limit=1'), { credentials: 'same-origin' });
  return (await r.json()).total;
});
await page.evaluate(() => { window.__longTasks = []; window.__longFrames = []; });
t = Date.now();
const scrolled = await page.evaluate(async () => {
  const el = document.querySelector('.vlist');
  let steps = 0;
  for (let i = 0; i < 4000; i++) {
    if (el.scrollTop <= 0 && document.body.textContent.includes('First prompt of the huge session')) break;
    el.scrollTop = Math.max(0, el.scrollTop - 600);
    steps++;
    await new Promise((r) => requestAnimationFrame(() => r()));
  }
  return { steps, rows: el.querySelectorAll('[data-key]').length };
});
out.scrollToTopMs = Date.now() - t;
out.scrollSteps = scrolled.steps;
out.rowsInDomWhileScrolling = scrolled.rows;
const long1 = await page.evaluate(() => window.__longTasks.slice());
out.longTasksWhileScrolling = { count: long1.length, maxMs: Math.round(Math.max(0, ...long1)), over50: long1.filter((d) => d > 50).length };
out.longFramesWhileScrolling = await page.evaluate(() => window.__longFrames.slice().sort((a, b) => b.ms - a.ms).slice(0, 12));

// 4. typing while 50 events a second stream in (the fake gemini: AW_FAKE_EVENTS / AW_FAKE_DELAY_MS of the IT)
console.error(JSON.stringify(out));
await page.evaluate(async (p) => {
  await fetch('/api/projects/quick-start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: p }), credentials: 'same-origin' });
}, process.env.AW_E2E_PROJECT);
await page.reload();
await page.locator('.projects .project').first().waitFor();
await page.getByRole('button', { name: /New chat in ui-project/ }).click();
await page.getByLabel('Provider').selectOption('gemini');
await page.getByLabel('Permissions').selectOption('bypassPermissions');
await page.getByText('live', { exact: true }).waitFor();
await page.getByLabel('Message', { exact: true }).fill('stream for the benchmark');
await page.getByRole('button', { name: 'Send' }).click();
await page.locator('.msg-assistant', { hasText: 'tok-3 ' }).waitFor();
await page.evaluate(() => { window.__longTasks = []; });
const box = page.getByLabel('Message', { exact: true });
const lat = [];
for (let i = 0; i < 40; i++) {
  const s = Date.now();
  await box.press('a');
  lat.push(Date.now() - s);
}
const long2 = await page.evaluate(() => window.__longTasks.slice());
out.typingWhileStreaming = { keys: lat.length, maxKeyMs: Math.max(...lat), medianKeyMs: lat.sort((a, b) => a - b)[lat.length >> 1], longTasksOver50: long2.filter((d) => d > 50).length };
await page.getByText('Turn finished').waitFor({ timeout: 60000 });
await browser.close();
console.log(JSON.stringify(out, null, 2));

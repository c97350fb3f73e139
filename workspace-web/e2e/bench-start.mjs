// The start page's critical path (docs/benchmarks.md "Web UI"): what happens between a navigation to / and the first
// project row in the DOM, at 4x CPU throttling, counted rather than only timed: the requests started before the row
// (with the JavaScript bytes they brought) and the page's script and task time (CDP Performance metrics). With
// AW_BENCH_DIST=dir, the page's own files (/, /assets/*) come from that build instead of the server's (the API still
// from the server), so two builds can be compared against one running server.
// env: AW_E2E_URL, AW_E2E_USER/AW_E2E_PASSWORD, AW_CHROMIUM, AW_BENCH_DIST, AW_BENCH_RUNS (default 5).
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const user = process.env.AW_E2E_USER ?? 'admin';
const password = process.env.AW_E2E_PASSWORD ?? 'a long e2e password';
const dist = process.env.AW_BENCH_DIST;
const runs = Number(process.env.AW_BENCH_RUNS ?? 5);

const browser = await chromium.launch({
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
if (dist) {
  const types = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html' };
  await ctx.route((url) => url.origin === new URL(base).origin && (url.pathname === '/' || url.pathname.startsWith('/assets/')), (route) => {
    const p = new URL(route.request().url()).pathname;
    const file = path.join(dist, p === '/' ? 'index.html' : p);
    return route.fulfill({ status: 200, body: readFileSync(file), headers: { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' } });
  });
}
const page = await ctx.newPage();
// the page's own clock for the first row (a MutationObserver), so the polling of the test does not blur it
await page.addInitScript(() => {
  new MutationObserver((_, obs) => {
    if (document.querySelector('.projects .project')) {
      window.__rowAt = performance.now();
      obs.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
});
await page.goto(base + '/');
await page.waitForSelector('h1');
if (await page.getByRole('heading', { name: 'Set up Agent Workspace' }).count()) {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Repeat password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
} else {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
await page.getByRole('navigation', { name: 'Projects' }).waitFor();
if (process.env.AW_E2E_PROJECT) {
  await page.evaluate(async (p) => { await fetch('/api/projects/quick-start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: p }) }); }, process.env.AW_E2E_PROJECT);
}

const cdp = await ctx.newCDPSession(page);
await cdp.send('Performance.enable');
await cdp.send('Network.enable');
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
const metric = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
const results = [];
for (let i = 0; i < runs; i++) {
  await page.goto('about:blank');
  const m0 = await metric();
  await page.goto(base + '/');
  await page.locator('.projects .project').first().waitFor();
  const m1 = await metric();
  const seen = await page.evaluate(() => {
    const row = window.__rowAt;
    const res = performance.getEntriesByType('resource').filter((e) => e.startTime < row);
    return {
      row: Math.round(row),
      requests: res.map((e) => new URL(e.name).pathname + ' @' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd)),
      scriptBytes: res.filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js')).reduce((a, e) => a + e.decodedBodySize, 0),
      after: performance.getEntriesByType('resource').filter((e) => e.startTime >= row).map((e) => new URL(e.name).pathname),
    };
  });
  results.push({
    projectListMs4xCpu: seen.row,
    requestsBeforeFirstRow: seen.requests,
    scriptBytesBeforeFirstRow: seen.scriptBytes,
    requestsAfterFirstRow: seen.after,
    scriptMs: Math.round((m1.ScriptDuration - m0.ScriptDuration) * 1000),
    taskMs: Math.round((m1.TaskDuration - m0.TaskDuration) * 1000),
    layoutMs: Math.round((m1.LayoutDuration - m0.LayoutDuration) * 1000),
    styleMs: Math.round((m1.RecalcStyleDuration - m0.RecalcStyleDuration) * 1000),
  });
  await page.waitForTimeout(1500);
}
const med = (k) => results.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(JSON.stringify({ dist: dist ?? 'server', medians: { projectListMs4xCpu: med('projectListMs4xCpu'), scriptMs: med('scriptMs'), taskMs: med('taskMs') }, runs: results }, null, 1));
await browser.close();

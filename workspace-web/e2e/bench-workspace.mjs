// The workspace panels' budgets (docs/benchmarks.md "Web UI"), measured in headless Chromium against a server held
// by WorkspaceBrowserIT with -Daw.e2e.hold (its bench project: 2,000 changed files and a 1 MB big.js).
// env: AW_E2E_URL, AW_E2E_BENCH_PROJECT, AW_E2E_USER/AW_E2E_PASSWORD, AW_CHROMIUM. Prints one JSON document.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const user = process.env.AW_E2E_USER ?? 'admin';
const password = process.env.AW_E2E_PASSWORD ?? 'a long e2e password';
const out = {};

const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
out.initialJsGzipBytes = initial.reduce((a, f) => a + gzipSync(readFileSync(path.join(dist, f)), { level: 9 }).length, 0);

const browser = await chromium.launch({
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...(process.env.AW_BENCH_DIST ? { serviceWorkers: 'block' } : {}) });
// AW_BENCH_DIST=dir: the page's own files from that build (the API still from the server), as in bench-start.mjs
if (process.env.AW_BENCH_DIST) {
  const d = process.env.AW_BENCH_DIST;
  const types = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html' };
  await ctx.route((url) => url.origin === new URL(base).origin && (url.pathname.startsWith('/assets/') || !/^\/(api|ws|shell)\b|\.[a-z]+$/.test(url.pathname)), (route) => {
    const p = new URL(route.request().url()).pathname;
    const file = path.join(d, p.startsWith('/assets/') ? p : 'index.html');
    return route.fulfill({ status: 200, body: readFileSync(file), headers: { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' } });
  });
}
const page = await ctx.newPage();
await page.addInitScript(() => {
  window.__longTasks = [];
  window.__longFrames = [];
  new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push(Math.round(e.duration)))).observe({ type: 'longtask', buffered: true });
  // what a long task was made of: long animation frames with their scripts (as in bench.mjs)
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
const name = await page.evaluate(async (p) => (await (await fetch('/api/projects/quick-start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: p }) })).json()).name, process.env.AW_E2E_BENCH_PROJECT);
await page.goto(`${base}/projects/${encodeURIComponent(name)}`);
const bar = page.getByRole('toolbar', { name: 'Panels' });

// 1. the diff of a 2,000-file change set: from the click to every file block drawn (scrolling to the end, as the
// blocks are drawn near the view); the longest task meanwhile
await bar.getByRole('button', { name: 'Git', exact: true }).click();
const git = page.getByRole('region', { name: 'Git' });
await git.getByRole('button', { name: 'All changes' }).waitFor({ timeout: 60000 });
out.diff2000ApiMs = await page.evaluate(async (n) => {
  const t0 = performance.now();
  const d = await (await fetch(`/api/git/diff?project=${encodeURIComponent(n)}`)).json();
  return [Math.round(performance.now() - t0), d.diff.length, d.truncated === true];
}, name);
await page.evaluate(() => { window.__longTasks = []; window.__longFrames = []; });
let t = Date.now();
await git.getByRole('button', { name: 'All changes' }).click();
await git.getByText(/^2000 files changed/).waitFor({ timeout: 60000 });
out.diff2000FirstBlocksMs = Date.now() - t;
out.diff2000BlocksDrawnAtFirst = await page.evaluate(() => new Promise((r) => setTimeout(() => r(document.querySelectorAll('.dv-file').length), 1000)));
// the blocks are drawn while the end of the list is near the view: scroll to the end every 100 ms (a reader
// dragging the scroll bar down) until all 2,000 are drawn
await page.waitForFunction(() => {
  const s = document.querySelector('.ws-git .ws-scroll');
  s.scrollTop = s.scrollHeight;
  return document.querySelectorAll('.dv-file').length >= 2000;
}, null, { timeout: 120000, polling: 100 });
out.diff2000AllBlocksMs = Date.now() - t;
out.diff2000LongTasksMs = await page.evaluate(() => window.__longTasks.slice().sort((a, b) => b - a).slice(0, 5));
out.diff2000LongFrames = await page.evaluate(() => window.__longFrames.slice().sort((a, b) => b.ms - a.ms).slice(0, 6));
await page.evaluate(() => { window.__longTasks = []; });
t = Date.now();
await page.evaluate(() => document.querySelector('.git-diff').scrollIntoView());
await git.locator('.ws-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
await page.waitForTimeout(300);
out.diff2000ScrollToEndLongTasksMs = await page.evaluate(() => window.__longTasks.slice().sort((a, b) => b - a).slice(0, 3));
await git.getByRole('button', { name: 'Close the diff' }).click();
await bar.getByRole('button', { name: 'Git', exact: true }).click();

// 2. the editor opens a 1 MB file: from the click in the tree to the editor drawn (first time: with the editor's chunk)
await bar.getByRole('button', { name: 'Files', exact: true }).click();
const files = page.getByRole('region', { name: 'Files' });
const size = await page.evaluate(async (n) => (await (await fetch(`/api/projects/${encodeURIComponent(n)}/files`)).json()).find((e) => e.name === 'big.js').size, name);
out.bigFileBytes = size;
await page.evaluate(() => { window.__longTasks = []; });
t = Date.now();
await files.getByRole('button', { name: 'big.js', exact: true }).click();
await files.locator('.editor-host[data-ready="true"] .cm-line').first().waitFor();
out.editorOpen1MbColdMs = Date.now() - t;
out.editorOpen1MbLongTasksMs = await page.evaluate(() => window.__longTasks.slice().sort((a, b) => b - a).slice(0, 3));
await files.getByRole('button', { name: 'Close the file' }).click();
t = Date.now();
await files.getByRole('button', { name: 'big.js', exact: true }).click();
await files.locator('.editor-host[data-ready="true"] .cm-line').first().waitFor();
out.editorOpen1MbWarmMs = Date.now() - t;
// typing at the end of the 1 MB file
await files.locator('.cm-content').click();
await page.keyboard.press('Control+End');
t = Date.now();
await page.keyboard.type('// typed');
out.editorType8CharsAtEndMs = Date.now() - t;

console.log(JSON.stringify(out, null, 2));
await browser.close();

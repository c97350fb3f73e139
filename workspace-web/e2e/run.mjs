// Browser tests of the UI: headless Chromium (Debian's) driven by playwright-core against a running server (started
// by the Java test WebUiBrowserIT with fake CLIs, the real claude CLI and the mock LLM). Exits non-zero on the first
// failure; screenshots go to AW_E2E_SHOTS for review.
//
// env: AW_E2E_URL (server), AW_E2E_PROJECT (absolute folder with a history session), AW_E2E_SHOTS (folder),
//      AW_E2E_REAL_CLAUDE=1 (the real claude runs the permission scenario), AW_CHROMIUM (default /usr/bin/chromium),
//      AW_E2E_MOCK_URL (the mock LLM: saved as claude's base URL with a key on the provider page, as a user does)
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const projectDir = process.env.AW_E2E_PROJECT;
const shots = process.env.AW_E2E_SHOTS ?? 'target/web-e2e';
const realClaude = process.env.AW_E2E_REAL_CLAUDE === '1';
const mockUrl = process.env.AW_E2E_MOCK_URL ?? '';
const user = 'admin';
const password = 'a long e2e password';
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const folderName = path.basename(projectDir);

let step = '';
const t0 = Date.now();
function log(s) {
  step = s;
  console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
}
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

const browser = await chromium.launch({
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});

const problems = [];
function watch(page, label) {
  page.on('console', (m) => {
    const t = m.text();
    if (/Content.Security.Policy|Refused to/i.test(t)) problems.push(`${label}: CSP: ${t}`);
    if (m.type() === 'warning') log(`${label} console warning: ${t.slice(0, 300)}`);
  });
  page.on('requestfailed', (r) => { if (r.url().includes('/api/')) log(`${label} request failed: ${r.method()} ${new URL(r.url()).pathname} ${r.failure()?.errorText}`); });
  page.on('pageerror', (e) => problems.push(`${label}: page error: ${e.message}`));
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, name + '.png') });
}

async function axe(page, name) {
  const result = await page.evaluate(`${axeSource}; axe.run(document, { resultTypes: ['violations'] })`);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of result.violations) console.log(`  axe ${name}: ${v.impact} ${v.id} (${v.nodes.length}) ${v.help}`);
  check(bad.length === 0, `no serious accessibility violation on ${name}: ${bad.map((v) => v.id + ' ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')).join('; ')}`);
}

async function login(page) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();
}

async function logout(page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

/** Starts a chat in the project with a provider and sends one message; returns when it is sent. */
async function newChat(page, provider, message, mode = 'default') {
  await page.getByRole('button', { name: new RegExp(`^New chat in ${folderName}`) }).click();
  await page.getByLabel('Provider').selectOption(provider);
  await page.getByLabel('Permissions').selectOption(mode);
  await page.getByText('live', { exact: true }).waitFor();
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** Scrolls the conversation up until its first message is drawn. */
async function scrollToTop(page) {
  for (let i = 0; i < 40; i++) {
    if (await page.getByText('First prompt from history').count()) return;
    await page.locator('.vlist').evaluate((el) => { el.scrollTop = 0; });
    await page.waitForTimeout(150);
  }
  await page.getByText('First prompt from history').first().waitFor({ timeout: 2000 });
}

async function assistantTexts(page) {
  return page.locator('.msg-assistant .md').allInnerTexts();
}

try {
  // ---------------- desktop ----------------
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await desktop.newPage();
  watch(page, 'desktop');

  log('first run: the setup screen');
  const res = await page.goto(base + '/');
  check(res.status() === 200, 'GET / answers 200');
  check(!(res.headers()['content-security-policy'] ?? '').includes('unsafe-inline'), 'no unsafe-inline in the CSP');
  await page.waitForSelector('h1');
  const alreadySetUp = process.env.AW_E2E_DEV === '1' && await page.getByRole('heading', { name: 'Sign in' }).count() > 0;
  if (alreadySetUp) {
    await login(page); // development against a held server that is set up already
  } else {
    await page.getByRole('heading', { name: 'Set up Agent Workspace' }).waitFor();
    check(await page.getByLabel('Setup token').count() === 0, 'no setup-token field on a local browser');
    await shot(page, 'desktop-01-setup');
    await axe(page, 'setup');
    await page.getByLabel('Username').fill(user);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Repeat password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('navigation', { name: 'Projects' }).waitFor();
    const cookies = await desktop.cookies();
    check(cookies.some((c) => c.name === 'token' && c.httpOnly), 'the session is an HTTP-only cookie');
    check(await page.evaluate(() => localStorage.length) === 0, 'nothing in localStorage');
  }
  log('logout, then login');
  await logout(page);
  await shot(page, 'desktop-02-login');
  await axe(page, 'login');
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill('wrong password!');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  await login(page);

  if (mockUrl) {
    log("claude's key and base URL, saved on the provider page as a user does");
    await page.goto(base + '/settings/providers/claude');
    const keyForm = page.getByRole('form', { name: 'API key' });
    await keyForm.getByLabel('Key', { exact: true }).fill('sk-aw-web-e2e');
    await keyForm.getByLabel('Base URL (optional)').fill(mockUrl);
    await keyForm.getByRole('button', { name: 'Save key' }).click();
    await keyForm.getByRole('status').getByText(/^Saved your key /).waitFor();
    // the status list is redrawn once the saved key's status comes back: wait for it to name the base URL
    await keyForm.getByText(mockUrl, { exact: false }).first().waitFor();
    check((await keyForm.innerText()).includes(mockUrl), 'the page shows the saved base URL');
    check(!(await keyForm.innerText()).includes('sk-aw-web-e2e'), 'the key is never shown again');
    await page.goto(base + '/');
    await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  }

  log('the sidebar lists the project found in the CLI history');
  const projectButton = page.getByRole('button', { name: new RegExp(folderName) }).first();
  await projectButton.waitFor({ timeout: 20000 });
  await projectButton.click();
  log('open a session from history');
  await page.getByRole('link', { name: /History title/ }).click();
  await page.locator('.msg-assistant').first().waitFor();
  check(await page.getByText('First prompt from history').count() === 0, 'the list is virtualized: it opens at the end');
  await scrollToTop(page);
  check(page.url().includes('/sessions/'), 'the session has its own address');
  // code blocks are highlighted by the worker (hl-worker.ts) and put in place in idle time
  await page.locator('.msg-assistant pre code.hljs span[class^="hljs-"]').first().waitFor({ timeout: 15000 });
  await shot(page, 'desktop-03-history-session');
  await axe(page, 'conversation');

  log('deep link: reloading the session address opens it again');
  await page.reload();
  await page.locator('.msg-assistant').first().waitFor();

  log('search palette finds the message and opens it');
  await page.keyboard.press('Control+k');
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('First prompt from history');
  await page.locator('.results .hit').first().waitFor();
  await shot(page, 'desktop-04-search');
  await page.keyboard.press('Enter');
  await page.locator('.msg.focused').waitFor();

  log('add the project folder (registers it for chats)');
  await page.getByRole('button', { name: '+ Project' }).click();
  // the picker lists the home folder first; the field is enabled once that listing is in (it never overwrites typing)
  await page.getByRole('listbox', { name: 'Folders' }).waitFor();
  const folderField = page.getByRole('textbox', { name: /^Folder/ });
  await folderField.fill(projectDir);
  check(await folderField.inputValue() === projectDir, `the folder field holds what was typed: ${await folderField.inputValue()}`);
  await shot(page, 'desktop-05-add-project');
  await page.getByRole('button', { name: 'Add project' }).click();
  await page.getByLabel('Provider').waitFor();

  if (realClaude) {
    log('a chat with the real claude: a permission prompt, allowed; the file is written');
    await newChat(page, 'claude', 'Create the file [[mock:tool:write_file path=ui-e2e.txt content=hello-from-ui]]');
    const banner = page.getByRole('alertdialog');
    await banner.waitFor({ timeout: 60000 });
    check((await banner.innerText()).includes('Write'), 'the prompt names the Write tool');
    await shot(page, 'desktop-06-permission');
    await banner.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Turn finished').waitFor({ timeout: 60000 });
    const written = path.join(projectDir, 'ui-e2e.txt');
    check(existsSync(written) && readFileSync(written, 'utf8').includes('hello-from-ui'), 'the agent wrote the file');
    await page.locator('[data-tool="Write"]').first().waitFor();
    check(page.url().includes('/sessions/'), 'the new session got its address');
    await shot(page, 'desktop-07-file-written');
  } else {
    console.log('  (the real claude CLI is not available: permission scenario skipped)');
  }

  log('streaming with a reload in the middle: every event exactly once');
  await newChat(page, 'gemini', 'stream slowly', 'bypassPermissions');
  await page.locator('.msg-assistant', { hasText: 'tok-15 ' }).waitFor({ timeout: 30000 });
  await page.waitForURL(/\/sessions\/.*provider=gemini/);
  await page.reload();
  await page.getByText('Turn finished').waitFor({ timeout: 60000 });
  const expected = Array.from({ length: 600 }, (_, i) => `tok-${i}`).join(' ');
  const texts = (await assistantTexts(page)).map((t) => t.trim().replace(/\s+/g, ' '));
  check(texts.length === 1, `one assistant message after the reload, got ${texts.length}: ${JSON.stringify(texts).slice(0, 300)}`);
  check(texts[0] === expected, `the streamed text holds every delta once, in order: ${texts[0].slice(0, 200)}…`);
  await shot(page, 'desktop-08-after-reload');

  log('a new chat whose turn ends as it moves to its session address is shown finished');
  // #20: the new chat learns its session id from `session-created` and moves to /projects/P/sessions/ID, which mounts
  // the session's view; frames arriving between the unmount and the mount were lost, so a quick turn never showed
  // "Turn finished". Here the page's WebSocket holds the run's frames from `session-created` to `complete`, hands
  // `session-created` to the app, and the rest in a microtask queued after it: after Preact's re-render for the new
  // address (the new-chat view is gone, the session's view is rendered) and before that view's effects run (a frame
  // later). A quick turn can land there on its own (pwa.mjs's codex turn sometimes did); here it lands there every time.
  await page.addInitScript(() => {
    const Native = window.WebSocket;
    const hold = { armed: false, runId: null, done: false };
    window.__awHold = hold;
    class HoldingWebSocket extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        let handler = null;
        let held = null;
        // the app sets onmessage; this instance keeps it and calls it itself
        Object.defineProperty(this, 'onmessage', { configurable: true, get: () => handler, set: (h) => { handler = h; } });
        const deliver = (e) => { if (handler) handler.call(this, e); };
        this.addEventListener('message', (e) => {
          let f = null;
          try { f = JSON.parse(String(e.data)); } catch { /* not a frame */ }
          // the run is the one this page's turn started (its `subscribed` answers the turn's clientRequestId), not a
          // replay of an earlier session's run
          if (hold.armed && !hold.runId && f && f.type === 'subscribed' && f.clientRequestId) hold.runId = f.runId;
          if (hold.runId && !hold.done && f && f.type === 'session-created' && f.runId === hold.runId) held = [];
          if (!held) return deliver(e);
          held.push(e);
          if (f && f.type === 'complete' && f.runId === hold.runId) {
            hold.done = true;
            const [first, ...rest] = held;
            held = null;
            deliver(first);
            queueMicrotask(() => rest.forEach(deliver));
          }
        });
      }
    }
    window.WebSocket = HoldingWebSocket;
  });
  await page.reload(); // the page's socket is now a holding one
  await page.getByRole('button', { name: new RegExp(`^New chat in ${folderName}`) }).click();
  await page.getByLabel('Provider').selectOption('codex');
  await page.getByLabel('Permissions').selectOption('bypassPermissions');
  await page.getByText('live', { exact: true }).waitFor();
  await page.evaluate(() => { window.__awHold.armed = true; });
  await page.getByLabel('Message', { exact: true }).fill('a quick turn');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.waitForURL(/\/sessions\/.*provider=codex/, { timeout: 60000 });
  await page.waitForFunction(() => window.__awHold.done, null, { timeout: 60000 });
  await page.getByText('Turn finished').waitFor({ timeout: 30000 });
  check(await page.getByText('The agent is working…').count() === 0, 'the turn is not shown as still running');
  check(await page.locator('.msg-user').count() === 1, 'the prompt is shown once');
  await shot(page, 'desktop-08b-quick-turn');

  log('an expired session goes back to login once, without a storm of requests');
  let unauthorized = 0;
  const count401 = (r) => { if (r.status() === 401) unauthorized++; };
  page.on('response', count401);
  await desktop.clearCookies(); // the session cookie is gone, as when it expires
  await page.getByRole('link', { name: /History title/ }).click();
  await page.getByText('Your session has ended').waitFor();
  await page.waitForTimeout(2000);
  page.off('response', count401);
  check(unauthorized >= 1 && unauthorized <= 2, `one or two 401 answers, then none (got ${unauthorized})`);
  await shot(page, 'desktop-09-session-ended');
  await login(page);

  log('logout');
  await logout(page);
  check(!(await desktop.cookies()).some((c) => c.name === 'token' && c.value), 'the cookie is cleared');
  await desktop.close();

  // ---------------- phone ----------------
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const ppage = await phone.newPage();
  watch(ppage, 'phone');
  log('phone: login');
  await ppage.goto(base + '/');
  await login(ppage);
  await shot(ppage, 'phone-01-home');
  log('phone: open a session from history through the drawer');
  await ppage.getByRole('button', { name: 'Projects', exact: true }).click();
  await ppage.getByRole('button', { name: new RegExp(folderName) }).first().click();
  await ppage.getByRole('link', { name: /History title/ }).click();
  await ppage.locator('.msg-assistant').first().waitFor();
  await scrollToTop(ppage);
  await shot(ppage, 'phone-02-session');
  await axe(ppage, 'phone conversation');
  log('phone: a chat streams and finishes; one tap sends once');
  await ppage.getByRole('button', { name: 'Projects', exact: true }).click();
  await newChat(ppage, 'gemini', 'stream on a phone', 'bypassPermissions');
  await ppage.getByText('Turn finished').waitFor({ timeout: 60000 });
  await ppage.locator('.vlist').evaluate((el) => { el.scrollTop = 0; }); // the list draws only rows near the view
  await ppage.locator('.msg-user').first().waitFor();
  const userBubbles = await ppage.locator('.msg-user').count();
  check(userBubbles === 1, `one user message, got ${userBubbles}`);
  const box = await ppage.locator('.composer').boundingBox();
  check(box && box.y + box.height <= 740 + 1, 'the composer is inside the viewport');
  await shot(ppage, 'phone-03-chat');
  await logout(ppage);
  await phone.close();

  check(problems.length === 0, `no CSP violation or page error: ${problems.join(' | ')}`);
  console.log(`e2e: all steps passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await browser.close();
  process.exit(0);
} catch (e) {
  console.error(`e2e FAILED at step "${step}": ${e.stack ?? e}`);
  if (problems.length) console.error('problems seen: ' + problems.join(' | '));
  try {
    const pages = browser.contexts().flatMap((c) => c.pages());
    for (const [i, p] of pages.entries()) await p.screenshot({ path: path.join(shots, `failure-${i}.png`) });
  } catch {
    /* best effort */
  }
  await browser.close();
  process.exit(1);
}

// Browser tests of the workspace panels (files and editor, git, terminal, layout), run by WorkspaceBrowserIT against
// the running server with a git project. Exits non-zero on the first failure; screenshots go to AW_E2E_SHOTS.
// env: AW_E2E_URL, AW_E2E_PROJECT (absolute folder, a git repository with src/hello.txt and src/phone.txt),
//      AW_E2E_SHOTS, AW_CHROMIUM, AW_E2E_DEV=1 (the server is set up already)
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const projectDir = process.env.AW_E2E_PROJECT;
const shots = process.env.AW_E2E_SHOTS ?? 'target/web-e2e-workspace';
const user = 'admin';
const password = 'a long e2e password';
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const t0 = Date.now();
let step = '';
function log(s) {
  step = s;
  console.log(`[ws-e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
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
  });
  page.on('pageerror', (e) => problems.push(`${label}: page error: ${e.message}`));
}
const shot = (page, name) => page.screenshot({ path: path.join(shots, name + '.png') });

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

const panelButton = (page, name) => page.getByRole('toolbar', { name: 'Panels' }).getByRole('button', { name, exact: true });
const files = (page) => page.getByRole('region', { name: 'Files' });
const git = (page) => page.getByRole('region', { name: 'Git' });
const terminal = (page) => page.getByRole('region', { name: 'Terminal' });

async function readFile(page, name, p) {
  return page.evaluate(async ([n, f]) => (await (await fetch(`/api/projects/${encodeURIComponent(n)}/file?path=${encodeURIComponent(f)}`)).json()).content, [name, p]);
}

/** Opens a file from the tree (folder by folder), waits for the editor. */
async function openFile(page, parts) {
  for (const dir of parts.slice(0, -1)) {
    await files(page).getByRole('button', { name: dir, exact: true }).click();
  }
  await files(page).getByRole('button', { name: parts[parts.length - 1], exact: true }).click();
  await files(page).locator('.editor-host[data-ready="true"] .cm-content').waitFor();
}

async function typeAtEnd(page, text) {
  await files(page).locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

async function termText(page) {
  return (await terminal(page).locator('.term-view:not([hidden]) .xterm-rows').innerText()).replace(/\u00a0/g, ' ');
}

async function waitTerm(page, needle, timeout = 15000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if ((await termText(page)).includes(needle)) return;
    await page.waitForTimeout(150);
  }
  throw new Error(`the terminal did not show ${needle}: ${await termText(page)}`);
}

async function typeInTerminal(page, line) {
  await terminal(page).locator('.term-view:not([hidden]) .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** The terminal flow: echo, then a command that prints while disconnected, and the replay after reconnecting. */
async function terminalFlow(page, prefix, tag) {
  await terminal(page).getByText(/Terminal \d+: connected/).waitFor({ timeout: 20000 });
  await typeInTerminal(page, `echo ${tag}-$((6*7))`);
  await waitTerm(page, `${tag}-42`);
  await shot(page, `${prefix}-terminal-echo`);
  log(`${tag}: a command prints while the terminal is disconnected`);
  await typeInTerminal(page, `sleep 2; echo ${tag}-missed-$((7*7))`);
  await terminal(page).getByRole('button', { name: 'Disconnect' }).click();
  await terminal(page).getByText(/disconnected \(still running on the server\)/).waitFor();
  await page.waitForTimeout(3500);
  check(!(await termText(page)).includes(`${tag}-missed-49`), 'nothing arrives while disconnected');
  await terminal(page).getByRole('button', { name: 'Reconnect' }).click();
  await waitTerm(page, `${tag}-missed-49`);
  const count = (await termText(page)).split(`${tag}-missed-49`).length - 1;
  check(count === 1, `the missed output is shown exactly once (${count})`);
  await terminal(page).getByText(/Terminal \d+: connected/).waitFor();
  await shot(page, `${prefix}-terminal-replayed`);
}

let projectName;
try {
  // ---------------- desktop ----------------
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await desktop.newPage();
  watch(page, 'desktop');
  log('sign in (first run: setup)');
  await page.goto(base + '/');
  await page.waitForSelector('h1');
  if (await page.getByRole('heading', { name: 'Set up Agent Workspace' }).count()) {
    await page.getByLabel('Username').fill(user);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Repeat password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  } else {
    await login(page);
  }
  projectName = await page.evaluate(async (p) => {
    const r = await fetch('/api/projects/quick-start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: p }) });
    return (await r.json()).name;
  }, projectDir);
  check(!!projectName, 'the project is registered');
  await page.goto(`${base}/projects/${encodeURIComponent(projectName)}`);
  await panelButton(page, 'Chat').waitFor();
  check(await panelButton(page, 'Chat').getAttribute('aria-pressed') === 'true', 'the chat is the first panel');

  log('files: open, edit and save a file');
  await panelButton(page, 'Files').click();
  await files(page).getByRole('tree', { name: 'Project files' }).waitFor();
  await openFile(page, ['src', 'hello.txt']);
  await typeAtEnd(page, 'edited in the browser');
  await page.keyboard.press('Control+s');
  await files(page).getByText(/^Saved /).waitFor();
  check((await readFile(page, projectName, 'src/hello.txt')) === 'hello\nedited in the browser', 'the file on disk holds the edit');
  await shot(page, 'desktop-01-editor');

  log('files: a change on disk since opening gives the conflict warning');
  await page.evaluate(async ([n]) => {
    await fetch(`/api/projects/${encodeURIComponent(n)}/file`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: 'src/hello.txt', content: 'hello\nedited in the browser\nchanged on disk\n' }) });
  }, [projectName]);
  await typeAtEnd(page, '\nkept after the conflict warning');
  await files(page).getByRole('button', { name: 'Save', exact: true }).click();
  await files(page).getByText(/changed on disk since you opened it/).waitFor();
  await shot(page, 'desktop-02-conflict');
  await files(page).getByRole('button', { name: 'Overwrite' }).click();
  await files(page).getByText(/^Saved /).waitFor();
  check((await readFile(page, projectName, 'src/hello.txt')).endsWith('kept after the conflict warning'), 'overwrite saved the editor text');

  log('files: an image is previewed, not opened as text');
  await files(page).getByRole('button', { name: 'Close the file' }).click();
  await files(page).getByRole('button', { name: 'logo.png', exact: true }).click();
  await files(page).getByRole('img', { name: 'Preview of logo.png' }).waitFor();
  await files(page).getByRole('button', { name: 'Close the file' }).click();

  log('files: an error is shown with the envelope message');
  await files(page).getByRole('button', { name: 'New folder' }).click();
  await page.getByLabel(/^Name/).fill('src');
  await page.getByRole('button', { name: 'Save' }).click();
  const createErr = await page.getByRole('dialog').getByRole('alert').innerText();
  check(/^Could not create it: /.test(createErr) && !/FILE_EXISTS/.test(createErr), `a readable error (${createErr})`);
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  log('git: the change in status and in the diff, stage, commit');
  await panelButton(page, 'Git').click();
  await git(page).getByRole('list', { name: 'Modified' }).getByRole('button', { name: 'src/hello.txt', exact: true }).click();
  await git(page).getByRole('table', { name: 'Changes in src/hello.txt' }).waitFor();
  check((await git(page).getByRole('table', { name: 'Changes in src/hello.txt' }).innerText()).includes('+kept after the conflict warning'), 'the diff shows the added line');
  await git(page).getByRole('button', { name: 'Side by side' }).click();
  await git(page).getByRole('button', { name: 'Unified' }).waitFor();
  await shot(page, 'desktop-03-git-diff');
  await git(page).getByRole('button', { name: 'Stage src/hello.txt' }).click();
  await git(page).getByRole('list', { name: 'Staged' }).getByRole('button', { name: 'src/hello.txt', exact: true }).waitFor();
  await axe(page, 'workspace with files and git');
  await git(page).getByLabel('Commit message').fill('Commit from the browser');
  await git(page).getByRole('button', { name: 'Commit staged' }).click();
  await git(page).getByText(/^Committed [0-9a-f]{7} on main\./).waitFor();
  await git(page).getByText('Nothing to commit: the working tree is clean.').waitFor();
  // the history comes from GET /api/git/log: this tab's commit on top, and the commits made outside the browser
  const history = git(page).getByRole('list', { name: 'History' });
  await history.getByText('Commit from the browser').waitFor();
  const historyText = await history.innerText();
  check(historyText.indexOf('Commit from the browser') < historyText.indexOf('the logo') && historyText.includes('the start'), `the history lists older commits made with git, newest first (${historyText})`);
  log('git: push without a remote shows the server message');
  await git(page).getByRole('button', { name: 'Push' }).click();
  const pushErr = await git(page).getByRole('alert').innerText();
  check(/^Push: /.test(pushErr) && pushErr.length > 12, `push error shown in words (${pushErr})`);
  await shot(page, 'desktop-04-git-committed');

  log('files the agent changed in this chat session are marked; a file the user edited is not');
  // the user edits README.md in the editor; then the fake claude (AW_FAKE_WRITE_FILE=hello.txt, AW_FAKE_REAL_CWD=1
  // from the IT) writes hello.txt in the project and its stream holds the Write of it
  check(await panelButton(page, 'Files').getAttribute('aria-pressed') === 'true', 'the files panel is still open');
  await files(page).getByRole('button', { name: 'README.md', exact: true }).click();
  await files(page).locator('.editor-host[data-ready="true"] .cm-content').waitFor();
  await typeAtEnd(page, 'edited by the user');
  await page.keyboard.press('Control+s');
  await files(page).getByText(/^Saved /).waitFor();
  await files(page).getByRole('button', { name: 'Close the file' }).click();
  const chat = page.getByRole('region', { name: 'Chat' });
  await chat.getByLabel('Message', { exact: true }).fill('Create the file [[mock:tool:write_file path=hello.txt content=hello-from-mock]]');
  await chat.getByRole('button', { name: 'Send' }).click();
  await chat.locator('[data-tool="Write"]').first().waitFor({ timeout: 30000 });
  await chat.getByText('Turn finished').first().waitFor({ timeout: 30000 });
  check(/^written by the fake claude CLI/.test(await readFile(page, projectName, 'hello.txt')), 'the agent wrote hello.txt');
  const treeMark = (p) => files(page).locator(`button.tree-item[title="${p}"] .agent-chg`);
  await treeMark('hello.txt').waitFor();
  check(await treeMark('README.md').count() === 0, 'README.md (edited by the user) has no agent mark');
  await files(page).locator('button.tree-item[title="README.md"] .chg').waitFor(); // ... though git sees it changed
  const gitMark = (list, p) => git(page).getByRole('list', { name: list }).locator('li.git-file', { has: page.getByRole('button', { name: p, exact: true }) }).locator('.agent-chg');
  await gitMark('Untracked', 'hello.txt').waitFor();
  check(await gitMark('Modified', 'README.md').count() === 0, 'README.md has no agent mark in the git panel');
  await shot(page, 'desktop-045-agent-changed');
  log('a path a tool call touched opens in the editor from the chat');
  const writeCard = chat.locator('[data-tool="Write"]').first();
  await writeCard.locator('summary').click();
  await writeCard.getByRole('button', { name: 'Open hello.txt in the editor' }).click();
  await files(page).locator('.editor-host[data-ready="true"] .cm-content').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('.editor-host[data-ready="true"] .cm-content')]
    .some((e) => e.innerText.includes('written by the fake claude CLI')), null, { timeout: 15000 });
  check(await panelButton(page, 'Files').getAttribute('aria-pressed') === 'true', 'the files panel shows the opened file');
  await shot(page, 'desktop-046-opened-from-chat');
  await files(page).getByRole('button', { name: 'Close the file' }).click();
  // the marks belong to the chat session shown: a new chat has none
  await page.getByRole('button', { name: /^New chat in / }).first().click();
  await treeMark('hello.txt').waitFor({ state: 'detached' });
  await files(page).locator('button.tree-item[title="hello.txt"] .chg').waitFor(); // git still sees the new file

  log('terminal');
  await panelButton(page, 'Terminal').click();
  await terminalFlow(page, 'desktop-05', 'desk');
  await axe(page, 'workspace with a terminal');

  log('layout: a border moves with the keyboard, and the layout is remembered after a reload');
  const sep = page.getByRole('separator').first();
  const before = Number(await sep.getAttribute('aria-valuenow'));
  await sep.focus();
  await page.keyboard.press('ArrowRight');
  check(Number(await sep.getAttribute('aria-valuenow')) > before, 'the border moved');
  // the terminal reattaches after the reload: a shell variable set before it and the output are still there
  await typeInTerminal(page, 'AW_KEPT=still-$((5*5)); echo desk-before-reload-$((3*5))');
  await waitTerm(page, 'desk-before-reload-15');
  const termTitle = (await terminal(page).getByRole('tab', { selected: true }).innerText()).trim();
  const stored = await page.evaluate(() => Object.entries(sessionStorage).filter(([k]) => k.startsWith('aw.terminals.')));
  check(stored.length === 1 && /^\[\{"title":"Terminal \d+","sessionId":"sh_[0-9a-f]+"\}\]$/.test(stored[0][1]),
    `the tab keeps only its terminal's title and id for a reload: ${JSON.stringify(stored)}`);
  await page.reload();
  await panelButton(page, 'Git').waitFor();
  for (const p of ['Chat', 'Files', 'Git', 'Terminal']) {
    check(await panelButton(page, p).getAttribute('aria-pressed') === 'true', `${p} is still open after the reload`);
  }
  log('terminal: after the reload the same shell is reattached and its output replayed');
  await terminal(page).getByText(/Terminal \d+: connected/).waitFor({ timeout: 20000 });
  check((await terminal(page).getByRole('tab', { selected: true }).innerText()).trim() === termTitle, `the tab is still ${termTitle}`);
  await waitTerm(page, 'desk-before-reload-15');
  const replayed = await termText(page);
  check(replayed.includes('desk-42') && replayed.split('desk-before-reload-15').length - 1 === 1,
    `the earlier output is replayed once: ${replayed}`);
  await typeInTerminal(page, 'echo "desk-alive-$AW_KEPT"');
  await waitTerm(page, 'desk-alive-still-25');
  check(await terminal(page).getByRole('tab').count() === 1, 'no second terminal was started');
  await shot(page, 'desktop-06-four-panels');
  await desktop.close();

  // ---------------- phone ----------------
  log('phone 360x740');
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const pp = await phone.newPage();
  watch(pp, 'phone');
  await pp.goto(`${base}/projects/${encodeURIComponent(projectName)}`);
  await login(pp);
  await panelButton(pp, 'Files').waitFor();
  check(await pp.getByRole('region', { name: 'Chat' }).isVisible(), 'the chat is the first tab');
  await shot(pp, 'phone-01-chat');
  await panelButton(pp, 'Files').click();
  check(!(await pp.getByRole('region', { name: 'Chat' }).isVisible()), 'one panel at a time on a phone');
  await openFile(pp, ['src', 'phone.txt']);
  check(!(await files(pp).getByRole('tree').isVisible()), 'the editor takes the panel on a phone');
  await typeAtEnd(pp, 'typed on a phone');
  await files(pp).getByRole('button', { name: 'Save', exact: true }).click();
  await files(pp).getByText(/^Saved /).waitFor();
  await shot(pp, 'phone-02-editor');
  await axe(pp, 'phone editor');
  await panelButton(pp, 'Git').click();
  await git(pp).getByRole('list', { name: 'Modified' }).getByRole('button', { name: 'src/phone.txt', exact: true }).click();
  // the diff is fetched after the click: wait for its table to hold the line, then read it
  await git(pp).getByRole('table', { name: 'Changes in src/phone.txt' }).getByText('typed on a phone').first().waitFor();
  check((await git(pp).getByRole('table', { name: 'Changes in src/phone.txt' }).innerText()).includes('+typed on a phone'), 'the phone diff shows the line');
  await git(pp).getByRole('button', { name: 'Stage src/phone.txt' }).click();
  await git(pp).getByRole('list', { name: 'Staged' }).waitFor();
  await git(pp).getByLabel('Commit message').fill('Phone commit from the browser');
  await git(pp).getByRole('button', { name: 'Commit staged' }).click();
  await git(pp).getByText(/^Committed [0-9a-f]{7} on main\./).waitFor();
  await git(pp).getByRole('list', { name: 'History' }).getByText('Phone commit from the browser').waitFor();
  await shot(pp, 'phone-03-git');
  await axe(pp, 'phone git');
  await panelButton(pp, 'Terminal').click();
  await terminal(pp).getByRole('toolbar', { name: 'Terminal keys' }).waitFor();
  check(await terminal(pp).getByRole('button', { name: 'Esc', exact: true }).isVisible(), 'the key bar is shown on a phone');
  await terminalFlow(pp, 'phone-04', 'phone');
  const box = await terminal(pp).getByRole('toolbar', { name: 'Terminal keys' }).boundingBox();
  check(box && box.y + box.height <= 740 + 1, 'the key bar is inside the viewport');
  await axe(pp, 'phone terminal');
  await phone.close();

  check(problems.length === 0, `no CSP violation or page error: ${problems.join(' | ')}`);
  log('all workspace browser checks passed');
  await browser.close();
} catch (e) {
  console.error(`FAILED at "${step}": ${e.stack ?? e}`);
  if (problems.length) console.error('problems: ' + problems.join('\n'));
  await browser.close().catch(() => {});
  process.exit(1);
}

// Browser tests of the settings and automation pages (issue 22): headless Chromium driven by playwright-core against
// a running server (started by the Java test SettingsBrowserIT: the fake npm on its PATH, a fake gemini CLI, no
// provider ready). Exits non-zero on the first failure; screenshots go to AW_E2E_SHOTS for review.
//
// env: AW_E2E_URL (server), AW_E2E_PROJECT (absolute folder to register as a project), AW_E2E_SHOTS (folder),
//      AW_CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const projectDir = process.env.AW_E2E_PROJECT;
const shots = process.env.AW_E2E_SHOTS ?? 'target/settings-e2e';
const user = 'admin';
const password = 'a long e2e password';
const providerKey = 'sk-e2e-provider-secret-WXYZ';
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let step = '';
const t0 = Date.now();
function log(s) {
  step = s;
  console.log(`[settings-e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
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
async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true });
}
async function axe(page, name) {
  const result = await page.evaluate(`${axeSource}; axe.run(document, { resultTypes: ['violations'] })`);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of result.violations) console.log(`  axe ${name}: ${v.impact} ${v.id} (${v.nodes.length}) ${v.help}`);
  check(bad.length === 0, `no serious accessibility violation on ${name}: ${bad.map((v) => v.id + ' ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')).join('; ')}`);
}
async function settingsTab(page, name) {
  await page.getByRole('navigation', { name: 'Settings pages' }).getByRole('link', { name, exact: true }).click();
}
async function noSideways(page, what) {
  const { sw, w } = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: window.innerWidth }));
  check(sw <= w + 1, `${what}: the page does not scroll sideways (${sw} > ${w})`);
}
/** The script's own HTTP client, as a program using an API key would. */
async function http(method, p, key, body) {
  const res = await fetch(base + p, {
    method, headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

try {
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: 'UTC' });
  const page = await desktop.newPage();
  watch(page, 'desktop');

  log('setup, then the start page shows the first-run guide (no provider is ready)');
  await page.goto(base + '/');
  await page.getByRole('heading', { name: 'Set up Agent Workspace' }).waitFor();
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Repeat password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  const guide = page.getByRole('region', { name: 'Getting started' });
  await guide.getByText('No coding agent is ready yet').waitFor();
  await shot(page, 'desktop-01-first-run-guide');
  await axe(page, 'start page with the guide');
  // the project the tasks run in, registered through its route with the page's session
  const qs = await page.request.post(base + '/api/projects/quick-start', { data: { path: projectDir }, headers: { Origin: base } });
  check(qs.ok(), `the project is registered (${qs.status()})`);
  const projectName = (await qs.json()).name;

  log('providers: the list, then claude is installed from the UI and its progress followed across a reload');
  // the operator's configured gemini binary counts as installed (the status route reports the binary runs use)
  await guide.getByText('Gemini CLI is installed').waitFor();
  await page.getByRole('button', { name: 'Settings' }).click(); // opens on Providers
  await page.goto(base + '/settings/providers/claude');
  await page.getByRole('heading', { name: 'Claude Code' }).waitFor();
  await page.getByRole('region', { name: 'Status' }).getByText('not installed').waitFor();
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.getByText(/Install running · [1-9]\d* lines/).waitFor({ timeout: 15000 });
  await shot(page, 'desktop-02-install-running');
  await page.reload(); // resumes following the same job
  await page.getByRole('button', { name: 'Cancel install' }).waitFor();
  await page.getByText(/Install succeeded — version/).waitFor({ timeout: 30000 });
  const installLog = await page.getByLabel('Install log').innerText();
  check(installLog.includes('claude-code 79') && installLog.includes('added 1 package'), 'the log holds every line of the install, replayed after the reload');
  check((installLog.match(/claude-code 5\b/g) ?? []).length === 1, 'no line twice after the reload');
  await page.getByRole('region', { name: 'Status' }).getByText(/^installed /).waitFor();
  await page.getByRole('region', { name: 'Status' }).getByText('no credential').waitFor();
  await shot(page, 'desktop-03-installed');
  await axe(page, 'provider page');

  log('providers: a key is saved, the status changes, only the masked tail shows');
  await page.getByLabel('Key', { exact: true }).fill(providerKey);
  await page.getByLabel('Base URL (optional)').fill('https://llm.example.test/v1');
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.getByRole('region', { name: 'Status' }).getByText('signed in (your key)').waitFor();
  await page.getByText('Saved your key').waitFor();
  const html = await page.content();
  check(!html.includes(providerKey), 'the secret is not in the page');
  check(html.includes('…WXYZ'), 'the masked tail is shown');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('region', { name: 'Models' }).locator('li').first().waitFor();
  await shot(page, 'desktop-04-key-saved');

  log('providers: an error shows the envelope message (cursor is not on npm)');
  await page.goto(base + '/settings/providers/cursor');
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  const alert = page.getByRole('region', { name: 'Install' }).getByRole('alert');
  await alert.waitFor();
  const alertText = await alert.innerText();
  check(alertText.length > 10 && !/HTTP_\d+/.test(alertText), `the server's message is shown: ${alertText}`);

  log('the guide now offers the first chat');
  await page.getByRole('link', { name: 'Agent Workspace' }).click();
  await guide.getByText('Claude Code is signed in').waitFor();
  await guide.getByRole('link', { name: /new chat in/ }).waitFor();
  await shot(page, 'desktop-05-guide-ready');

  log('API keys: created with two scopes, copied once, used by an HTTP client, toggled off');
  await page.getByRole('button', { name: 'Settings' }).click();
  await settingsTab(page, 'API keys');
  await page.getByLabel('Name', { exact: true }).fill('e2e script');
  for (const s of ['projects:write', 'tasks:write', 'providers:read']) await page.getByRole('checkbox', { name: new RegExp('^' + s) }).uncheck();
  await page.getByText('Start agent runs; create, change').waitFor(); // each scope is explained
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByLabel('New API key').innerText()).trim();
  check(/^px_[0-9a-f]{32}$/.test(secret), 'the new key is shown in full once');
  await shot(page, 'desktop-06-api-key-created');
  await axe(page, 'API keys');
  let r = await http('GET', '/api/projects', secret);
  check(r.status === 200 && r.json.some((p) => p.name === projectName), `the key reads projects (${r.status})`);
  r = await http('POST', '/api/automation/tasks', secret, { prompt: 'x', projectId: projectName, schedule: { kind: 'interval', everySeconds: 60 } });
  check(r.status === 403, `without tasks:write the key cannot create tasks (${r.status})`);
  await page.getByRole('button', { name: 'Done' }).click();
  check(await page.getByText(secret).count() === 0, 'the key is not shown again');
  await page.reload();
  const row = page.getByRole('row', { name: /e2e script/ });
  check(!(await row.innerText()).includes('never'), 'last used is shown');
  check((await row.innerText()).includes('read only: projects:read, tasks:read'), 'the scopes are summarised');
  // waited for from before the click: the list's reload can answer before uncheck() returns
  const relisted = page.waitForResponse((res) => res.url().includes('/api/settings/api-keys') && res.request().method() === 'GET');
  await page.getByRole('checkbox', { name: 'e2e script active' }).uncheck();
  await relisted;
  r = await http('GET', '/api/projects', secret);
  check(r.status === 401, `a deactivated key is refused (${r.status})`);

  log('tasks: a cron task with the next runs previewed in its zone');
  await settingsTab(page, 'Tasks');
  await page.getByRole('button', { name: 'New task' }).click();
  await page.getByLabel('Prompt').fill('Summarise the changes of the day');
  await page.getByRole('combobox', { name: /^Provider/ }).selectOption('gemini');
  await page.getByRole('combobox', { name: /^Project/ }).selectOption(projectName);
  await page.getByLabel('Cron expression').fill('30 8 * * 1-5');
  await page.getByLabel('Time zone').fill('Asia/Tokyo');
  const next = page.getByRole('list', { name: 'Next runs' }).locator('li');
  await page.waitForFunction(() => document.querySelectorAll('.next-runs li').length === 5);
  const times = await next.allInnerTexts();
  check(times.every((t) => t.includes('08:30') && /GMT\+9/.test(t) && !/Sat|Sun/.test(t)), `five weekday 08:30 Tokyo times: ${times.join(' | ')}`);
  await page.getByLabel('Cron expression').fill('30 8 * *');
  await page.getByText('A cron expression has five fields').waitFor();
  check(await page.getByRole('button', { name: 'Create task' }).isDisabled(), 'an invalid schedule cannot be submitted');
  await page.getByLabel('Cron expression').fill('30 8 * * 1-5');
  await shot(page, 'desktop-07-cron-preview');
  await axe(page, 'task form');
  await page.getByRole('button', { name: 'Create task' }).click();
  await page.getByRole('heading', { name: 'Summarise the changes of the day' }).waitFor();
  await page.getByText(/cron 30 8 \* \* 1-5 \(Asia\/Tokyo\)/).waitFor();
  check(!(await page.getByText(/next: —/).count()), 'the task has a next run');

  log('tasks: pause and resume');
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByText('paused', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByText('scheduled', { exact: true }).waitFor();

  log('tasks: a one-time task due in a few seconds runs; its run opens with its live stream');
  await page.getByRole('link', { name: '← All tasks' }).click();
  await page.getByRole('button', { name: 'New task' }).click();
  await page.getByLabel('Name (optional)').fill('Soon');
  await page.getByLabel('Prompt').fill('Say hello');
  await page.getByRole('combobox', { name: /^Provider/ }).selectOption('gemini');
  await page.getByRole('combobox', { name: /^Project/ }).selectOption(projectName);
  await page.getByRole('radio', { name: 'Once' }).check();
  const soon = new Date(Date.now() + 6000).toISOString().slice(0, 19); // the context's zone is UTC
  await page.getByLabel(/^At \(your time/).fill(soon);
  await page.getByRole('button', { name: 'Create task' }).click();
  await page.getByRole('heading', { name: 'Soon' }).waitFor();
  const runLink = page.getByRole('link', { name: 'open the live run' }).or(page.locator('section.settings li a[href^="/settings/runs/"]').first());
  await runLink.first().waitFor({ timeout: 30000 });
  await runLink.first().click();
  await page.getByRole('heading', { name: /^Run / }).waitFor();
  await page.getByLabel('Run events').locator('.ev').first().waitFor({ timeout: 20000 });
  await page.getByRole('status').filter({ hasText: /^completed$/ }).waitFor({ timeout: 30000 });
  const evCount = await page.getByLabel('Run events').locator('.ev').count();
  check(evCount >= 2, `the run's events are shown (${evCount})`);
  await shot(page, 'desktop-08-run');
  await axe(page, 'run page');

  log('runs: the list shows the run, filters, and the task its history');
  await settingsTab(page, 'Runs');
  await page.getByRole('row', { name: /gemini/ }).getByText('completed').waitFor();
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('failed');
  await page.getByText('No runs.').waitFor();
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('');
  await page.getByRole('row', { name: /gemini/ }).first().waitFor();
  await shot(page, 'desktop-09-runs');
  await axe(page, 'runs list');

  log('notifications: preferences and the in-app list');
  await settingsTab(page, 'Notifications');
  await page.getByRole('region', { name: 'Recent notifications' }).waitFor();
  await page.getByRole('heading', { name: 'What to notify' }).waitFor();
  await axe(page, 'notifications');

  log('users, network, agent loop and system pages open for an administrator');
  await settingsTab(page, 'Users');
  await page.getByLabel('Username').fill('second');
  await page.getByLabel(/^Password/).fill('another long password');
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('row', { name: /second/ }).waitFor();
  await axe(page, 'users');
  await settingsTab(page, 'Network');
  await page.getByRole('note').getByText('Careful').waitFor();
  await page.getByRole('region', { name: 'Tunnel' }).waitFor();
  await shot(page, 'desktop-10-network');
  await axe(page, 'network');
  await settingsTab(page, 'Agent loop');
  await page.getByRole('form', { name: 'Release policy' }).or(page.getByRole('region', { name: 'Release policy' })).first().waitFor();
  await page.getByRole('region', { name: 'Review queue' }).waitFor();
  await shot(page, 'desktop-11-agent-loop');
  await axe(page, 'agent loop');
  await settingsTab(page, 'System');
  await page.getByText(/^Version /).waitFor();
  await axe(page, 'system');

  log('appearance: theme, text size and density apply at once, are kept by this browser, and follow the system');
  await settingsTab(page, 'Appearance');
  const themeGroup = page.getByRole('radiogroup', { name: 'Theme' });
  await themeGroup.waitFor();
  const look = () => page.evaluate(() => {
    const cs = getComputedStyle(document.body);
    const b = document.querySelector('.appearance-sample button');
    return { bg: cs.backgroundColor, root: getComputedStyle(document.documentElement).fontSize,
      p: getComputedStyle(document.querySelector('.appearance-sample p')).fontSize,
      button: b ? getComputedStyle(b).minHeight : '', theme: document.documentElement.dataset.theme ?? 'system' };
  });
  const plain = await look();
  check(plain.bg === 'rgb(247, 247, 248)' && plain.root === '15px' && plain.button === '36px', `the defaults: light, 15 px, comfortable (${JSON.stringify(plain)})`);
  await shot(page, 'desktop-12-appearance-default');
  await page.evaluate(() => { window.__awSamePage = true; });
  await themeGroup.getByLabel('Dark').check();
  await page.getByRole('radiogroup', { name: 'Text size' }).getByLabel('Large').check();
  await page.getByRole('radiogroup', { name: 'Density' }).getByLabel('Compact').check();
  const dark = await look();
  check(dark.bg === 'rgb(22, 24, 29)' && dark.theme === 'dark', `dark at once (${JSON.stringify(dark)})`);
  check(dark.root === '17px' && parseFloat(dark.p) > parseFloat(plain.p), `larger text at once (${JSON.stringify(dark)})`);
  check(dark.button === '28px', `compact buttons at once (${JSON.stringify(dark)})`);
  check(await page.evaluate(() => window.__awSamePage === true), 'applied without a reload');
  await shot(page, 'desktop-13-appearance-dark-large-compact');
  await axe(page, 'appearance, dark');
  await page.reload();
  await themeGroup.waitFor();
  const kept = await look();
  check(kept.bg === dark.bg && kept.root === '17px' && kept.button === '28px', `kept by this browser after a reload (${JSON.stringify(kept)})`);
  check(await themeGroup.getByLabel('Dark').isChecked(), 'the page shows the stored choice');
  // "As the system" follows the device's setting; an explicit Light does not
  await page.emulateMedia({ colorScheme: 'dark' });
  await themeGroup.getByLabel('As the system').check();
  check((await look()).bg === 'rgb(22, 24, 29)', 'as the system: dark when the device is dark');
  await themeGroup.getByLabel('Light').check();
  check((await look()).bg === 'rgb(247, 247, 248)', 'light stays light on a dark device');
  await axe(page, 'appearance, light');
  await page.emulateMedia({ colorScheme: 'light' });
  await themeGroup.getByLabel('As the system').check();
  await page.getByRole('radiogroup', { name: 'Text size' }).getByLabel('Normal').check();
  await page.getByRole('radiogroup', { name: 'Density' }).getByLabel('Comfortable').check();
  const back = await look();
  check(back.root === '15px' && back.button === '36px' && back.theme === 'system', `back to the defaults (${JSON.stringify(back)})`);
  await desktop.close();

  log('phone: settings pages at 360x740');
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, timezoneId: 'UTC' });
  const ppage = await phone.newPage();
  watch(ppage, 'phone');
  await ppage.goto(base + '/settings/providers');
  await ppage.getByRole('heading', { name: 'Sign in' }).waitFor();
  await ppage.getByLabel('Username').fill(user);
  await ppage.getByLabel('Password').fill(password);
  await ppage.getByRole('button', { name: 'Sign in' }).click();
  await ppage.getByRole('link', { name: /Claude Code/ }).waitFor();
  await noSideways(ppage, 'providers');
  await shot(ppage, 'phone-01-providers');
  await axe(ppage, 'phone providers');
  await ppage.goto(base + '/settings/tasks/new');
  await ppage.getByRole('list', { name: 'Next runs' }).waitFor();
  await noSideways(ppage, 'task form');
  await shot(ppage, 'phone-02-task-form');
  await axe(ppage, 'phone task form');
  await ppage.goto(base + '/settings/runs');
  await ppage.getByRole('row', { name: /gemini/ }).first().waitFor();
  await noSideways(ppage, 'runs');
  await shot(ppage, 'phone-03-runs');
  await ppage.goto(base + '/settings/api-keys');
  await ppage.getByRole('row', { name: /e2e script/ }).waitFor();
  await noSideways(ppage, 'API keys');
  await shot(ppage, 'phone-04-api-keys');
  await ppage.goto(base + '/settings/appearance');
  await ppage.getByRole('radiogroup', { name: 'Theme' }).getByLabel('Dark').check();
  check(await ppage.evaluate(() => getComputedStyle(document.body).backgroundColor) === 'rgb(22, 24, 29)', 'dark on the phone');
  await noSideways(ppage, 'appearance');
  await shot(ppage, 'phone-05-appearance-dark');
  await axe(ppage, 'phone appearance');
  await phone.close();

  check(problems.length === 0, `no CSP violation or page error: ${problems.join(' | ')}`);
  console.log(`settings-e2e: all steps passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await browser.close();
  process.exit(0);
} catch (e) {
  console.error(`settings-e2e FAILED at step "${step}": ${e.stack ?? e}`);
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

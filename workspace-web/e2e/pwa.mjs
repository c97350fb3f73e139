// Browser tests of the PWA and Web Push: headless Chromium (Debian's) driven by playwright-core against the server
// that WebUiBrowserIT started (with --web-push-allow-loopback-http), after e2e/run.mjs set up the account and added
// the project folder. Exits non-zero on the first failure; screenshots go to AW_E2E_SHOTS.
//
// What is real and what stands in (docs/web-ui.md "Tests"):
// * the manifest and installability are Chromium's own verdict (CDP Page.getAppManifest, getInstallabilityErrors);
// * the offline shell: the real service worker serves the cached app while the browser context is offline;
// * "update available": the browser's real update check of /sw.js, whose answer changes on the way as after a new
//   build (the browser goes through an HTTP proxy in this script that appends a line to /sw.js once told to);
// * Web Push: Chromium's PushManager.subscribe needs its vendor's push service, which this machine cannot reach, so
//   an init script answers subscribe() with a subscription whose endpoint is a push service stand-in run here (an
//   HTTP server in this script) and whose keys this script holds. Everything else is real: the settings page asks
//   the permission, fetches the server's VAPID key and registers the subscription; its "Send a test" button makes the
//   server push a test message to the stand-in (decrypted and checked; a second press is rate-limited); a run finishes; the server
//   encrypts the notification (RFC 8291) and POSTs it to the stand-in, which checks the VAPID header and decrypts it
//   with the subscription's private key; the decrypted message is then delivered into the real service worker as a
//   push event (CDP ServiceWorker.deliverPushMessage), which shows the notification; a notificationclick event is
//   dispatched in the worker with that notification (no CDP command clicks a notification), and the open page
//   navigates to the session it is about.
//
// env: AW_E2E_URL, AW_E2E_PROJECT, AW_E2E_SHOTS, AW_CHROMIUM
import { chromium } from 'playwright-core';
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createECDH, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const base = process.env.AW_E2E_URL;
const projectDir = process.env.AW_E2E_PROJECT;
const shots = process.env.AW_E2E_SHOTS ?? 'target/web-e2e';
const user = 'admin';
const password = 'a long e2e password';
mkdirSync(shots, { recursive: true });
const folderName = path.basename(projectDir);

let step = '';
const t0 = Date.now();
function log(s) {
  step = s;
  console.log(`[pwa ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
}
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
const b64u = (buf) => Buffer.from(buf).toString('base64url');

// ---- the push service stand-in: records every message POSTed to it ----
const received = [];
const pushService = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(201).end();
  });
});
await new Promise((r) => pushService.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${pushService.address().port}/push/${randomBytes(8).toString('hex')}`;

// ---- an HTTP proxy between the browser and the server: it passes everything through, except that once
// `newBuild` is set it answers /sw.js with the server's file plus a line, as a newly deployed build would (the
// browser's own update check of the worker script cannot be intercepted through CDP or playwright's routing)
let newBuild = false;
const target = new URL(base);
const proxy = createServer((req, res) => {
  const url = new URL(req.url);
  const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: url.pathname + url.search, headers: req.headers }, (r) => {
    if (newBuild && url.pathname === '/sw.js' && r.statusCode === 200) {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => {
        const body = Buffer.concat([gunzipIf(r, Buffer.concat(chunks)), Buffer.from('\n// a new build\n')]);
        const headers = { ...r.headers, 'content-length': String(body.length) };
        delete headers['content-encoding'];
        delete headers.etag;
        res.writeHead(200, headers).end(body);
      });
      return;
    }
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
});
proxy.on('connect', (req, socket, head) => { // WebSocket (/ws) through the proxy: a tunnel
  const up = connect(Number(target.port), target.hostname, () => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    up.write(head);
    up.pipe(socket);
    socket.pipe(up);
  });
  up.on('error', () => socket.destroy());
  socket.on('error', () => up.destroy());
});
await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
function gunzipIf(r, buf) {
  return r.headers['content-encoding'] === 'gzip' ? gunzipSync(buf) : buf;
}

// ---- the subscription's keys (what the browser's push stack would hold) ----
const ua = createECDH('prime256v1');
ua.generateKeys();
const authSecret = randomBytes(16);

/** Opens an aes128gcm Web Push message (RFC 8188 §2, RFC 8291 §3.4) with the subscription's keys. */
function decryptPush(body) {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  check(ciphertext.length <= rs, 'one record');
  const hmac = (key, data) => createHmac('sha256', key).update(data).digest();
  const ecdh = ua.computeSecret(asPublic);
  const prkKey = hmac(authSecret, ecdh);
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'latin1')).subarray(0, 12);
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([d.update(ciphertext.subarray(0, ciphertext.length - 16)), d.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  check(plain[end] === 2, 'the last record ends with the delimiter 2');
  return plain.subarray(0, end).toString('utf8');
}

// a persistent profile: Chromium does not consider an app installable in an incognito-like context
const profile = mkdtempSync(path.join(tmpdir(), 'aw-pwa-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.AW_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
    `--proxy-server=http://127.0.0.1:${proxy.address().port}`, '--proxy-bypass-list=<-loopback>'],
  viewport: { width: 1280, height: 800 },
});
async function closeAll() {
  await ctx.close();
  pushService.close();
  proxy.close();
  rmSync(profile, { recursive: true, force: true });
}

const problems = [];
function watch(page, label) {
  page.on('console', (m) => {
    const t = m.text();
    if (/Content.Security.Policy|Refused to/i.test(t)) problems.push(`${label}: CSP: ${t}`);
  });
  page.on('pageerror', (e) => problems.push(`${label}: page error: ${e.message}`));
}
async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, name + '.png') });
}
async function poll(what, fn, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

try {
  await ctx.grantPermissions(['notifications'], { origin: base });
  // the stand-in subscription (see the head of this file); the key the page passes is kept for a check
  await ctx.addInitScript(({ endpoint, p256dh, auth }) => {
    if (!('PushManager' in self)) return;
    PushManager.prototype.subscribe = async function (options) {
      const key = options && options.applicationServerKey;
      self.__awAppServerKey = key ? Array.from(new Uint8Array(key.buffer ?? key)) : null;
      const json = { endpoint, expirationTime: null, keys: { p256dh, auth } };
      return { endpoint, expirationTime: null, options, toJSON: () => json, unsubscribe: async () => true };
    };
  }, { endpoint, p256dh: b64u(ua.getPublicKey()), auth: b64u(authSecret) });
  const page = ctx.pages()[0] ?? await ctx.newPage();
  watch(page, 'pwa');

  log('sign in; the service worker installs and controls the page');
  await page.goto(base + '/');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  await poll('the service worker to control the page', () => page.evaluate(() => !!navigator.serviceWorker.controller));
  await poll('the service worker target', () => ctx.serviceWorkers()[0]);

  log('the manifest is valid and Chromium finds the app installable');
  const cdp = await ctx.newCDPSession(page);
  const manifest = await cdp.send('Page.getAppManifest');
  check(manifest.url === base + '/manifest.webmanifest', `the manifest is linked: ${manifest.url}`);
  check(manifest.errors.length === 0, `no manifest error: ${JSON.stringify(manifest.errors)}`);
  const parsed = JSON.parse(manifest.data);
  check(parsed.display === 'standalone' && parsed.start_url === '/', 'standalone, starting at /');
  const installability = await poll('the installability check', async () => {
    const r = await cdp.send('Page.getInstallabilityErrors');
    return r;
  });
  check(installability.installabilityErrors.length === 0, `installable: ${JSON.stringify(installability.installabilityErrors)}`);

  log('Web Push: turn it on in Settings → Notifications');
  await page.getByRole('button', { name: 'Settings' }).click();
  // the gear opens the settings' first page (providers); notifications are a page of their own
  await page.getByRole('navigation', { name: 'Settings pages' }).getByRole('link', { name: 'Notifications', exact: true }).click();
  await page.getByRole('button', { name: 'Turn on for this device' }).click();
  await page.getByText('This browser will get notifications.').waitFor();
  const serverKey = await page.evaluate(async () => (await (await fetch('/api/notifications/web-push/public-key')).json()).publicKey);
  const passedKey = await page.evaluate(() => self.__awAppServerKey);
  check(passedKey && b64u(Buffer.from(passedKey)) === serverKey, 'the page subscribed with the server\'s VAPID key');
  const subs = await page.evaluate(async () => (await (await fetch('/api/notifications/web-push/subscriptions')).json()));
  check(JSON.stringify(subs).includes(`http://127.0.0.1:${pushService.address().port}`), `the subscription is registered: ${JSON.stringify(subs).slice(0, 300)}`);
  await page.locator('input[type=checkbox]').first().waitFor();
  await shot(page, 'pwa-01-notifications-on');

  log('"Send a test": the server pushes a test message to this subscription');
  await page.getByRole('button', { name: 'Send a test' }).click();
  await page.getByText('A test notification is on its way to your subscribed device.').waitFor();
  const testMsg = await poll('the test message at the stand-in', () => received.find((m) => m.method === 'POST'));
  check(testMsg.path === new URL(endpoint).pathname, `the test went to the subscription's endpoint: ${testMsg.path}`);
  check((testMsg.headers.authorization ?? '').includes('k=' + serverKey), 'the test carries the VAPID header');
  const testNote = JSON.parse(decryptPush(testMsg.body));
  check(testNote.kind === 'test' && testNote.title === 'Test notification', `a test message: ${JSON.stringify(testNote)}`);
  await page.getByRole('button', { name: 'Send a test' }).click();
  await page.getByText(/try again in \d+ s/).waitFor();
  received.splice(0); // what follows looks for the run's message

  log('a run finishes: the server pushes an encrypted message to the subscription\'s endpoint');
  await page.getByRole('button', { name: new RegExp(folderName) }).first().click();
  await page.getByRole('button', { name: new RegExp(`^New chat in ${folderName}`) }).click();
  await page.getByLabel('Provider').selectOption('codex');
  await page.getByLabel('Permissions').selectOption('bypassPermissions');
  await page.getByText('live', { exact: true }).waitFor();
  await page.getByLabel('Message', { exact: true }).fill('a turn that ends in a notification');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Turn finished').waitFor({ timeout: 60000 });
  const sessionUrl = new URL(page.url()).pathname;
  check(/^\/projects\/[^/]+\/sessions\/[^/]+$/.test(sessionUrl), `the chat has its session address: ${page.url()}`);
  const msg = await poll('a push message at the stand-in', () => received.find((m) => m.method === 'POST'));
  check(msg.path === new URL(endpoint).pathname, `the message went to the subscription's endpoint: ${msg.path}`);
  check(msg.headers['content-encoding'] === 'aes128gcm', 'aes128gcm');
  check((msg.headers.authorization ?? '').startsWith('vapid t=') && msg.headers.authorization.includes('k=' + serverKey), 'a VAPID header with the server key');
  check(!msg.body.includes(Buffer.from('"sessionId"')), 'the body is encrypted');
  const plaintext = decryptPush(msg.body);
  const note = JSON.parse(plaintext);
  console.log(`  push message (decrypted): ${plaintext.slice(0, 300)}`);
  check(note.kind === 'stop', `a "stop" notification: ${note.kind}`);
  check(note.provider === 'codex', `the message names the run's provider: ${note.provider}`);
  const openUrl = `${sessionUrl}?provider=codex`;
  check(`/projects/${encodeURIComponent(note.projectName)}/sessions/${encodeURIComponent(note.sessionId)}` === sessionUrl,
    `the notification is about the session just run (${sessionUrl})`);

  log('the push reaches the service worker, which shows the notification');
  await page.goto(base + '/settings/notifications'); // away from the session
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
  const registrations = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  const registrationId = await poll('the worker registration', () => registrations.find((r) => r.scopeURL === base + '/')?.registrationId);
  // the worker's states and errors, reported if the notification does not come (this step failed now and then)
  const workerLog = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (e) => workerLog.push(e.versions.map((v) => `v${v.versionId} ${v.runningStatus}/${v.status}`).join(',')));
  cdp.on('ServiceWorker.workerErrorReported', (e) => workerLog.push(`error: ${e.errorMessage.errorMessage}`));
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId, data: plaintext });
  // the worker may have been stopped while idle and started again for the push: ask the current one
  const worker = () => ctx.serviceWorkers().at(-1);
  const notes = () => worker().evaluate(async () => (await self.registration.getNotifications())
    .map((n) => ({ title: n.title, body: n.body, url: n.data && n.data.url }))).then((l) => l.length && l);
  // In four of ten runs on 2026-11-27 the first delivery showed nothing for 15 s, with the worker running and no
  // error reported: the CDP delivery seems to be lost now and then (cause not found). It is delivered once more,
  // said in the log; the notification carries the run id as its tag, so two deliveries still show one.
  let shown = await poll('the notification', notes, 8000).catch(() => null);
  if (!shown) {
    console.log(`  (no notification 8 s after the push; delivered again. Worker events: ${workerLog.join(' | ') || 'none'})`);
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId, data: plaintext });
    shown = await poll('the notification', notes, 15000)
      .catch((e) => { throw new Error(`${e.message}; workers ${ctx.serviceWorkers().length}; worker events: ${workerLog.join(' | ')}`); });
  }
  check(shown.length === 1 && shown[0].title === note.title && shown[0].url === openUrl, `one notification opening the session under its provider: ${JSON.stringify(shown)}`);

  log('a click on the notification opens its session in the open window');
  await worker().evaluate(async () => {
    const [n] = await self.registration.getNotifications();
    self.dispatchEvent(new NotificationEvent('notificationclick', { notification: n }));
  }).catch((e) => console.log(`  (the synthetic event's waitUntil: ${String(e).split('\n')[0]})`));
  await page.waitForURL((u) => u.pathname === sessionUrl && u.searchParams.get('provider') === 'codex', { timeout: 10000 });
  // the conversation view of that session (the fake codex keeps no CLI history, so the finished turn's messages are
  // not listed there: the view says the session has no messages)
  await page.locator('.conversation .conv-title h1', { hasText: note.sessionId }).waitFor();
  check((await worker().evaluate(async () => (await self.registration.getNotifications()).length)) === 0, 'the clicked notification is closed');
  await shot(page, 'pwa-02-opened-from-notification');

  log('offline: a reload shows the cached app shell, which says it is offline');
  await ctx.setOffline(true);
  const offlineRes = await page.reload();
  check(offlineRes && offlineRes.fromServiceWorker(), 'the page came from the service worker');
  await page.getByRole('heading', { name: 'Offline' }).waitFor();
  await shot(page, 'pwa-03-offline');
  await ctx.setOffline(false);
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();

  log('a changed sw.js: "A new version is available", and Reload activates it');
  const before = await worker().evaluate(() => self.location.href);
  newBuild = true;
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
  await page.getByText('A new version is available').waitFor({ timeout: 20000 });
  await shot(page, 'pwa-04-update-available');
  const reloaded = page.waitForEvent('load');
  await page.getByRole('button', { name: 'Reload' }).click();
  await reloaded;
  await page.getByRole('navigation', { name: 'Projects' }).waitFor();
  check(await page.getByText('A new version is available').count() === 0, 'the banner is gone after the reload');
  check(before.endsWith('/sw.js'), 'the worker was /sw.js');

  check(problems.length === 0, `no CSP violation or page error: ${problems.join(' | ')}`);
  console.log(`pwa: all steps passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await closeAll();
  process.exit(0);
} catch (e) {
  console.error(`pwa FAILED at step "${step}": ${e.stack ?? e}`);
  if (problems.length) console.error('problems seen: ' + problems.join(' | '));
  try {
    const pages = ctx.pages();
    for (const [i, p] of pages.entries()) await p.screenshot({ path: path.join(shots, `pwa-failure-${i}.png`) });
  } catch {
    /* best effort */
  }
  await closeAll();
  process.exit(1);
}

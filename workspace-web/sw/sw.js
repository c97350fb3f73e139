// Service worker of Agent Workspace (generated at build: the asset list and version are filled in by vite.config.ts).
// Offline shell: pages are fetched from the network first and fall back to the cached app; hashed assets come from
// the cache. The API and the sockets are never cached. Push: shows the notification; a click opens its session.
const VERSION = '__VERSION__';
const ASSETS = __ASSETS__;
const CACHE = 'aw-shell-' + VERSION;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(['/', ...ASSETS])));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('aw-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const p = url.pathname;
  if (p.startsWith('/api/') || p === '/ws' || p === '/shell' || p === '/health') return;
  if (req.mode === 'navigate') {
    event.respondWith(fetch(req).catch(() => caches.match('/', { cacheName: CACHE }).then((r) => r || Response.error())));
    return;
  }
  if (p.startsWith('/assets/')) {
    event.respondWith(
      caches.match(req, { cacheName: CACHE }).then((hit) => hit || fetch(req).then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(req, copy));
        }
        return res;
      })),
    );
  }
});

function sessionUrl(n) {
  if (n && n.projectName && n.sessionId) {
    // the session lives in its provider's history: without ?provider= the page would look under the default one
    return '/projects/' + encodeURIComponent(n.projectName) + '/sessions/' + encodeURIComponent(n.sessionId)
      + (n.provider ? '?provider=' + encodeURIComponent(n.provider) : '');
  }
  if (n && n.projectName) return '/projects/' + encodeURIComponent(n.projectName);
  return '/';
}

self.addEventListener('push', (event) => {
  let n = {};
  try {
    n = event.data ? event.data.json() : {};
  } catch (e) {
    n = { title: 'Agent Workspace', body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(
    self.registration.showNotification(n.title || 'Agent Workspace', {
      body: n.body || '',
      tag: n.runId || n.id || undefined,
      icon: '/icon-192.png',
      data: { url: sessionUrl(n) },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || '/';
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      for (const c of list) {
        if (new URL(c.url).origin === self.location.origin && 'focus' in c) {
          c.postMessage({ type: 'open', url });
          return c.focus();
        }
      }
      return self.clients.openWindow(url);
    }),
  );
});

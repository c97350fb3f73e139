// The service worker (public/sw.js): an offline shell and an "update available" prompt. A new worker waits until
// the user chooses to reload, so a page is never swapped under someone typing.
import { useEffect, useState } from 'preact/hooks';
import { navigate } from './router';

let waiting: ServiceWorker | null = null;
const listeners = new Set<() => void>();

function announce(w: ServiceWorker) {
  waiting = w;
  listeners.forEach((fn) => fn());
}

export function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).then((reg) => {
    if (reg.waiting && navigator.serviceWorker.controller) announce(reg.waiting);
    reg.addEventListener('updatefound', () => {
      const w = reg.installing;
      w?.addEventListener('statechange', () => {
        if (w.state === 'installed' && navigator.serviceWorker.controller) announce(w);
      });
    });
    setInterval(() => reg.update().catch(() => undefined), 60 * 60 * 1000);
  }).catch(() => undefined);
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (reloading || !waiting) return;
    reloading = true;
    location.reload();
  });
  // a click on a push notification while the app is open: the worker asks the page to navigate
  navigator.serviceWorker.addEventListener('message', (e) => {
    if (e.data?.type === 'open' && typeof e.data.url === 'string' && e.data.url.startsWith('/')) {
      navigate(e.data.url);
    }
  });
}

export function UpdateBanner() {
  const [show, setShow] = useState(!!waiting);
  useEffect(() => {
    const fn = () => setShow(true);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  if (!show) return null;
  return (
    <div class="update" role="status">
      A new version is available.
      <button class="primary" onClick={() => waiting?.postMessage({ type: 'skip-waiting' })}>Reload</button>
      <button class="link" onClick={() => setShow(false)}>Later</button>
    </div>
  );
}

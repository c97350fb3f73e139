// System (administrators): the running version and install mode, an update with its streamed log, and the wait
// for the restart: the page polls /health until another process answers (its startedAt, or its version, changed,
// or it was down in between) and then reloads itself. Restart on its own is here too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorText, useAction } from './common';
import { postSse } from './sse';

interface Health { status: string; version: string; installMode?: string; startedAt?: string; [k: string]: unknown }

async function health(): Promise<Health | null> {
  try {
    const r = await fetch('/health', { cache: 'no-store' });
    return r.ok ? await r.json() : null;
  } catch {
    return null;
  }
}

/**
 * Polls /health (every 500 ms) until a new process answers, then reloads. A restart can take well under a second,
 * so "it was down in between" alone may be missed: the server's startedAt changes with every start.
 */
async function waitForRestart(from: Health | null, note: (s: string) => void) {
  let wentDown = false;
  const until = Date.now() + 10 * 60_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const h = await health();
    if (!h) {
      if (!wentDown) note('The service is restarting…');
      wentDown = true;
      continue;
    }
    const newVersion = !!from && h.version !== from.version;
    const newProcess = !from || !from.startedAt || !h.startedAt ? wentDown : h.startedAt !== from.startedAt;
    if (newVersion || newProcess || wentDown) {
      note(`Back${newVersion ? ` with version ${h.version}` : ''}. Reloading…`);
      location.reload();
      return;
    }
  }
  note('The service did not come back within 10 minutes. Check its log.');
}

export default function SystemPage({ admin }: { admin: boolean }) {
  const [h, setH] = useState<Health | null>(null);
  const [lines, setLines] = useState<string[]>([]);
  const [phase, setPhase] = useState('');
  const [note, setNote] = useState('');
  const act = useAction();
  const logRef = useRef<HTMLPreElement>(null);
  useEffect(() => { health().then(setH); }, []);
  useEffect(() => { if (logRef.current) logRef.current.scrollTop = logRef.current.scrollHeight; }, [lines.length]);
  if (!admin) return <p>Only administrators update or restart the service.</p>;

  async function update() {
    setLines([]);
    setNote('');
    const from = h;
    let restarting = false;
    await act.run(() => postSse('/api/system/update', {}, (ev, d) => {
      if (ev === 'log') setLines((l) => [...l, d?.text ?? String(d)]);
      else if (ev === 'progress') setPhase(`${d?.phase ?? ''}${typeof d?.percent === 'number' ? ` ${d.percent}%` : ''}${d?.message ? ' — ' + d.message : ''}`);
      else if (ev === 'done') {
        setNote(d?.message ?? (d?.updated ? 'Updated.' : 'Already up to date.'));
        restarting = !!d?.selfRestarting;
      } else if (ev === 'error') act.setError(d?.message ?? d?.error?.message ?? 'The update failed.');
    }));
    if (restarting) await waitForRestart(from, setNote);
  }

  async function restart() {
    if (!confirm('Restart the service? Running agents are stopped.')) return;
    const from = (await health()) ?? h;
    const ok = await act.run(() => api('/api/system/restart', { method: 'POST', body: {} }));
    if (ok) {
      setNote('Restarting…');
      await waitForRestart(from, setNote);
    }
  }

  return (
    <div class="stack">
      <div class="panel">
        <p>Version <strong>{h?.version ?? '…'}</strong>{h?.installMode ? <> · install mode <code>{String(h.installMode)}</code></> : null}</p>
      </div>
      <div class="row">
        <button class="primary" disabled={act.busy} onClick={update}>Update now</button>
        <button disabled={act.busy} onClick={restart}>Restart</button>
      </div>
      {phase && <p class="muted">{phase}</p>}
      {lines.length > 0 && <pre class="log" tabIndex={0} ref={logRef} aria-label="Update log">{lines.join('\n')}</pre>}
      {note && <p role="status">{note}</p>}
      <ErrorText message={act.error} />
    </div>
  );
}

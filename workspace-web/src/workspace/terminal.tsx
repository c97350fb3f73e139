// The terminal panel: xterm.js over /shell (shell.ts), several terminals as tabs, fitted to the panel (resize is
// sent to the server), copy with Ctrl+Shift+C and paste with Ctrl+Shift+V (or the browser's own paste), a key bar
// for phones (Esc, Tab, Ctrl, arrows, |). Shown only to administrators: the server allows /shell to no one else.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import { installCspStyleShim } from './cspstyle';
import { ShellConnection, type ShellState } from './shell';
import { loadTerminals, saveTerminals } from './termstore';
import { appearance, onAppearance, TEXT_PX, type Appearance } from '../appearance';

/** The terminal's font size for the chosen text size (13 px at the normal 15 px). */
const termFontSize = (a: Appearance) => Math.round((13 * TEXT_PX[a.textSize]) / 15);

installCspStyleShim();

interface Tab { id: number; title: string; resume?: string }
let nextId = 1;

function newTab(): Tab {
  return { id: nextId, title: `Terminal ${nextId++}` };
}

export default function TerminalPanel({ project, visible }: { project: string; visible: boolean }) {
  // after a reload, the terminals this browser tab had open in the project reattach (termstore.ts)
  const [tabs, setTabs] = useState<Tab[]>(() => {
    const stored = loadTerminals(project);
    if (!stored.length) return [newTab()];
    return stored.map((t) => {
      const n = Number(/^Terminal (\d+)$/.exec(t.title)?.[1] ?? 0);
      if (n >= nextId) nextId = n + 1;
      return { id: nextId++, title: t.title, resume: t.sessionId };
    });
  });
  const [active, setActive] = useState(tabs[0]?.id ?? 0);
  // each tab's terminal id on the server, once known; written to sessionStorage in tab order
  const ids = useRef(new Map<number, string>(tabs.filter((t) => t.resume).map((t) => [t.id, t.resume!])));
  const tabsRef = useRef(tabs);
  tabsRef.current = tabs;
  const persist = () => saveTerminals(project, tabsRef.current
    .filter((t) => ids.current.has(t.id)).map((t) => ({ title: t.title, sessionId: ids.current.get(t.id)! })));
  useEffect(persist, [tabs]);

  function add() {
    const t = newTab();
    setTabs((x) => [...x, t]);
    setActive(t.id);
  }
  function closeTab(id: number) {
    ids.current.delete(id);
    setTabs((x) => {
      const rest = x.filter((t) => t.id !== id);
      if (active === id && rest.length) setActive(rest[rest.length - 1].id);
      return rest;
    });
  }
  function sessionOf(id: number, sessionId: string | null) {
    if (sessionId) ids.current.set(id, sessionId);
    else ids.current.delete(id);
    persist();
  }

  return (
    <div class="ws-term-panel ws-col">
      <div class="term-tabs">
        <div class="row" role="tablist" aria-label="Terminals">
          {tabs.map((t) => (
            <button key={t.id} role="tab" aria-selected={t.id === active} class={`tab${t.id === active ? ' on' : ''}`} onClick={() => setActive(t.id)}>{t.title}</button>
          ))}
        </div>
        <button class="tab" aria-label="New terminal" onClick={add} disabled={tabs.length >= 4} title="At most 4 terminals">+</button>
      </div>
      {tabs.length === 0 && <p class="pad muted">No terminal open. <button onClick={add}>Open a terminal</button></p>}
      {tabs.map((t) => (
        <TermView key={t.id} project={project} title={t.title} resume={t.resume} shown={visible && t.id === active}
          onSession={(sid) => sessionOf(t.id, sid)} onClosed={() => closeTab(t.id)} />
      ))}
    </div>
  );
}

const KEYS: [string, string, string][] = [
  ['Esc', '\x1b', ''], ['Tab', '\t', ''], ['←', '\x1b[D', 'Left'], ['↑', '\x1b[A', 'Up'], ['↓', '\x1b[B', 'Down'], ['→', '\x1b[C', 'Right'], ['|', '|', 'Pipe'],
];

function TermView({ project, title, resume, shown, onSession, onClosed }: {
  project: string; title: string; resume?: string; shown: boolean; onSession: (sessionId: string | null) => void; onClosed: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const conn = useRef<ShellConnection | null>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const ctrl = useRef(false);
  const [ctrlOn, setCtrlOn] = useState(false);
  const [state, setState] = useState<{ s: ShellState; detail?: string }>({ s: 'connecting' });

  useEffect(() => {
    const t = new Terminal({ cursorBlink: true, fontSize: termFontSize(appearance()), scrollback: 5000, fontFamily: 'ui-monospace, Menlo, Consolas, monospace', theme: { background: '#111111' } });
    const f = new FitAddon();
    t.loadAddon(f);
    t.open(host.current!);
    term.current = t;
    fit.current = f;
    const size = () => ({ cols: t.cols, rows: t.rows });
    const c = new ShellConnection(project, size, {
      output: (d) => t.write(d),
      state: (s, detail) => {
        setState({ s, detail });
        // kept for a reload while the terminal can be reattached; forgotten once it ended or is gone
        if (s === 'open') onSession(c.sessionId);
        else if (s === 'exited' || (s === 'failed' && !c.sessionId)) onSession(null);
      },
    }, resume);
    conn.current = c;
    t.onData((d) => {
      if (ctrl.current && d.length === 1) {
        const code = d.toUpperCase().charCodeAt(0);
        if (code >= 64 && code <= 95) d = String.fromCharCode(code - 64);
        ctrl.current = false;
        setCtrlOn(false);
      }
      c.input(d);
    });
    t.onResize(({ cols, rows }) => c.resize(cols, rows));
    t.attachCustomKeyEventHandler((e) => {
      if (e.type === 'keydown' && e.ctrlKey && e.shiftKey && e.key.toLowerCase() === 'c') {
        const sel = t.getSelection();
        if (sel) navigator.clipboard?.writeText(sel).catch(() => {});
        return false;
      }
      if (e.type === 'keydown' && e.ctrlKey && e.shiftKey && e.key.toLowerCase() === 'v') {
        navigator.clipboard?.readText().then((x) => t.paste(x)).catch(() => {});
        return false;
      }
      return true;
    });
    const refit = () => {
      if (host.current && host.current.offsetWidth > 0 && host.current.offsetHeight > 0) {
        try {
          f.fit();
        } catch {
          /* not laid out yet */
        }
      }
    };
    const offAppearance = onAppearance((a) => {
      t.options.fontSize = termFontSize(a);
      refit();
    });
    const ro = new ResizeObserver(refit);
    ro.observe(host.current!);
    refit();
    c.connect();
    const wake = () => {
      if (document.visibilityState === 'visible') c.wake();
    };
    document.addEventListener('visibilitychange', wake);
    window.addEventListener('online', wake);
    return () => {
      offAppearance();
      ro.disconnect();
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('online', wake);
      c.detach();
      t.dispose();
    };
  }, []);

  useEffect(() => {
    if (shown) {
      requestAnimationFrame(() => {
        try {
          fit.current?.fit();
        } catch {
          /* hidden */
        }
        term.current?.focus();
      });
    }
  }, [shown]);

  const c = conn.current;
  const label: Record<ShellState, string> = {
    connecting: 'connecting…', open: 'connected', detached: 'disconnected (still running on the server)', reconnecting: 'reconnecting…',
    exited: 'ended', failed: 'failed',
  };
  return (
    <div class="ws-col term-view" hidden={!shown} style={{ flex: 1, minHeight: 0, display: shown ? 'flex' : 'none', flexDirection: 'column' }}>
      <div class="ws-head">
        <span class={`term-state small ${state.s === 'open' ? '' : 'muted'}`} role="status">{title}: {label[state.s]}{state.detail ? ` — ${state.detail}` : ''}</span>
        <span class="spacer" />
        {state.s === 'open' && <button onClick={() => c?.detach()}>Disconnect</button>}
        {(state.s === 'detached' || state.s === 'failed' || state.s === 'reconnecting') && c?.sessionId && <button onClick={() => c.reattach()}>Reconnect</button>}
        {state.s !== 'exited' && <button onClick={() => c?.close()}>End</button>}
        {(state.s === 'exited' || (state.s === 'failed' && !c?.sessionId)) && <button onClick={onClosed}>Close tab</button>}
      </div>
      <div class="term-host" ref={host} aria-label={`${title} output`} />
      <div class="keybar" role="toolbar" aria-label="Terminal keys">
        {KEYS.slice(0, 2).map(([k, seq]) => <button key={k} onClick={() => { c?.input(seq); term.current?.focus(); }}>{k}</button>)}
        <button aria-pressed={ctrlOn} title="Control: applies to the next key" onClick={() => { ctrl.current = !ctrl.current; setCtrlOn(ctrl.current); term.current?.focus(); }}>Ctrl</button>
        {KEYS.slice(2).map(([k, seq, name]) => <button key={name} aria-label={name} onClick={() => { c?.input(seq); term.current?.focus(); }}>{k}</button>)}
      </div>
    </div>
  );
}

// The project workspace: chat, files, git and terminal as panels. On a laptop the open panels stand side by side
// with draggable borders; on a phone (≤ 800 px) one panel at a time, chosen by tabs. The layout is remembered per
// project (layout.ts). The chat is always mounted (it keeps its socket and draft); the other panels are chunks of
// their own, loaded the first time they are shown, and stay mounted (a terminal keeps its connection) while hidden.
import type { ComponentChildren } from 'preact';
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { activate, loadLayout, PANELS, resize, saveLayout, toggle, type Layout, type PanelId } from './layout';
import { projects } from '../store';
import { projectRelative } from './openfile';
import './workspace.css';

const FilesPanel = lazy(() => import('./files'));
const GitPanel = lazy(() => import('./git'));
const TerminalPanel = lazy(() => import('./terminal'));

const TITLES: Record<PanelId, string> = { chat: 'Chat', files: 'Files', git: 'Git', terminal: 'Terminal' };
const PHONE = '(max-width: 800px)';

function usePhone() {
  const [phone, setPhone] = useState(() => window.matchMedia(PHONE).matches);
  useEffect(() => {
    const m = window.matchMedia(PHONE);
    const on = () => setPhone(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return phone;
}

export function Workspace({ project, admin, children }: { project: string; admin: boolean; children: ComponentChildren }) {
  const [layout, setLayoutState] = useState<Layout>(() => sanitize(loadLayout(project), admin));
  const [mounted, setMounted] = useState<Set<PanelId>>(() => new Set(layout.open));
  const [openRequest, setOpenRequest] = useState<{ path: string; n: number } | null>(null);
  const phone = usePhone();
  const row = useRef<HTMLDivElement>(null);
  const shown = phone ? [layout.active] : layout.open;

  function setLayout(l: Layout) {
    setLayoutState(l);
    saveLayout(project, l);
    setMounted((m) => (l.open.every((p) => m.has(p)) && m.has(l.active) ? m : new Set([...m, ...l.open, l.active])));
  }

  useEffect(() => {
    const on = (e: Event) => {
      const path = projectRelative((e as CustomEvent<string>).detail, projects.find(project)?.fullPath);
      if (path === null) return; // outside the project: the file API could not open it
      setOpenRequest((r) => ({ path, n: (r?.n ?? 0) + 1 }));
      setLayoutState((l) => {
        const next = activate(l, 'files');
        saveLayout(project, next);
        return next;
      });
      setMounted((m) => new Set([...m, 'files']));
    };
    window.addEventListener('aw-open-file', on);
    return () => window.removeEventListener('aw-open-file', on);
  }, [project]);

  function startDrag(i: number, e: PointerEvent) {
    const el = row.current;
    if (!el) return;
    e.preventDefault();
    const width = el.getBoundingClientRect().width;
    const start = layout;
    const x0 = e.clientX;
    const target = e.currentTarget as HTMLElement;
    target.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent) => setLayoutState(resize(start, i, (m.clientX - x0) / width));
    const up = (m: PointerEvent) => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      setLayout(resize(start, i, (m.clientX - x0) / width));
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
  }

  const available = PANELS.filter((p) => p !== 'terminal' || admin);
  return (
    <div class="workspace">
      <div class="ws-tabs" role="toolbar" aria-label="Panels">
        {available.map((p) => (
          <button
            key={p}
            class={`ws-tab${shown.includes(p) ? ' on' : ''}`}
            aria-pressed={shown.includes(p)}
            onClick={() => setLayout(phone ? activate(layout, p) : toggle(layout, p))}
          >
            {TITLES[p]}
          </button>
        ))}
      </div>
      <div class="ws-row" ref={row}>
        {PANELS.map((p) => {
          const visible = shown.includes(p);
          const i = layout.open.indexOf(p);
          const size = phone ? 1 : layout.sizes[i] ?? 0;
          const sepAfter = !phone && visible && i < layout.open.length - 1;
          return [
            <section
              key={p}
              class={`ws-panel ws-${p}`}
              hidden={!visible}
              aria-label={TITLES[p]}
              style={visible ? { flexGrow: size, flexBasis: 0 } : undefined}
            >
              {p === 'chat' ? children : mounted.has(p) && (
                <Suspense fallback={<p class="pad muted">Loading…</p>}>
                  {p === 'files' && <FilesPanel project={project} openRequest={openRequest} />}
                  {p === 'git' && <GitPanel project={project} visible={visible} />}
                  {p === 'terminal' && admin && <TerminalPanel project={project} visible={visible} />}
                </Suspense>
              )}
            </section>,
            sepAfter && (
              <div
                key={p + '-sep'}
                class="ws-sep"
                role="separator"
                aria-orientation="vertical"
                aria-label={`Resize ${TITLES[p]} and ${TITLES[layout.open[i + 1]]}`}
                aria-valuenow={Math.round(size * 100)}
                aria-valuemin={15}
                aria-valuemax={85}
                tabIndex={0}
                onPointerDown={(e) => startDrag(i, e as unknown as PointerEvent)}
                onKeyDown={(e) => {
                  if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
                    e.preventDefault();
                    setLayout(resize(layout, i, e.key === 'ArrowLeft' ? -0.05 : 0.05));
                  }
                }}
              />
            ),
          ];
        })}
      </div>
    </div>
  );
}

function sanitize(l: Layout, admin: boolean): Layout {
  if (admin || !l.open.includes('terminal')) return l.active === 'terminal' && !admin ? { ...l, active: l.open[0] } : l;
  return toggle(l, 'terminal');
}

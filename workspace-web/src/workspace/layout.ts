// The workspace's layout as data: which panels are open side by side on a laptop (with their widths as fractions),
// and which one a phone shows as its tab. Remembered per project in localStorage (a layout is no secret).
export type PanelId = 'chat' | 'files' | 'git' | 'terminal';
export const PANELS: PanelId[] = ['chat', 'files', 'git', 'terminal'];
export const MIN_SIZE = 0.15;

export interface Layout {
  /** Panels shown side by side on a laptop, left to right; never empty. */
  open: PanelId[];
  /** Widths of the open panels, fractions summing to 1. */
  sizes: number[];
  /** The panel a phone shows (and the one last chosen). */
  active: PanelId;
}

export function defaultLayout(): Layout {
  return { open: ['chat'], sizes: [1], active: 'chat' };
}

function even(n: number) {
  return Array.from({ length: n }, () => 1 / n);
}

/** Opens a panel (to the right, taking an even share) or, when open, closes it; the last open panel stays. */
export function toggle(l: Layout, id: PanelId): Layout {
  const i = l.open.indexOf(id);
  if (i < 0) {
    const open = PANELS.filter((p) => p === id || l.open.includes(p));
    const share = 1 / open.length;
    const rest = 1 - share;
    const sizes = open.map((p) => (p === id ? share : l.sizes[l.open.indexOf(p)] * rest));
    return { open, sizes, active: id };
  }
  if (l.open.length === 1) return { ...l, active: id };
  const open = l.open.filter((p) => p !== id);
  const freed = l.sizes[i];
  const sizes = l.sizes.filter((_, j) => j !== i).map((s) => s / (1 - freed));
  return { open, sizes, active: l.active === id ? open[Math.max(0, i - 1)] : l.active };
}

/** Shows one panel (a phone's tab); on a laptop it is opened beside the others when it was closed. */
export function activate(l: Layout, id: PanelId): Layout {
  return l.open.includes(id) ? { ...l, active: id } : toggle(l, id);
}

/** Moves the border after panel `index` by `delta` (a fraction of the whole width); each panel keeps MIN_SIZE. */
export function resize(l: Layout, index: number, delta: number): Layout {
  if (index < 0 || index >= l.open.length - 1) return l;
  const a = l.sizes[index];
  const b = l.sizes[index + 1];
  const d = Math.max(MIN_SIZE - a, Math.min(b - MIN_SIZE, delta));
  const sizes = l.sizes.slice();
  sizes[index] = a + d;
  sizes[index + 1] = b - d;
  return { ...l, sizes };
}

/** A stored layout, checked: anything malformed gives the default. */
export function parseLayout(text: string | null): Layout {
  if (!text) return defaultLayout();
  try {
    const v = JSON.parse(text);
    const open: PanelId[] = Array.isArray(v.open) ? PANELS.filter((p) => v.open.includes(p)) : [];
    if (open.length === 0 || !Array.isArray(v.sizes) || v.sizes.length !== open.length) return defaultLayout();
    let sizes = v.sizes.map((s: unknown) => (typeof s === 'number' && Number.isFinite(s) && s > 0 ? Math.max(MIN_SIZE, s) : 0));
    if (sizes.includes(0)) sizes = even(open.length);
    const sum = sizes.reduce((a: number, b: number) => a + b, 0);
    sizes = sizes.map((s: number) => s / sum);
    const active: PanelId = PANELS.includes(v.active) ? v.active : open[0];
    return { open, sizes, active };
  } catch {
    return defaultLayout();
  }
}

export function storageKey(project: string) {
  return `aw.layout.${project}`;
}

export function loadLayout(project: string, store: Pick<Storage, 'getItem'> = localStorage): Layout {
  try {
    return parseLayout(store.getItem(storageKey(project)));
  } catch {
    return defaultLayout();
  }
}

export function saveLayout(project: string, l: Layout, store: Pick<Storage, 'setItem'> = localStorage) {
  try {
    store.setItem(storageKey(project), JSON.stringify(l));
  } catch {
    /* private mode or full: the layout is just not remembered */
  }
}

// Markdown to sanitized HTML (marked, then DOMPurify), and code highlighting in a worker (highlight.js is a chunk of
// its own, fetched the first time a code block is shown).
import { Marked } from 'marked';
import DOMPurify from 'dompurify';

const md = new Marked({ gfm: true, breaks: false, async: false });
const cache = new Map<string, string>();

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // a code block scrolls sideways: it must be reachable by keyboard
  if (node.tagName === 'PRE') node.setAttribute('tabindex', '0');
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Sanitized HTML for a Markdown text (memoized for finished texts). */
export function renderMarkdown(text: string, memo = true): string {
  if (memo) {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
  }
  // very long texts are shown as plain text: parsing them would freeze the page
  const src = text.length > 200_000 ? '```\n' + text.slice(0, 200_000) + '\n```\n\n_(truncated)_' : text;
  const html = DOMPurify.sanitize(md.parse(src) as string, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  });
  if (memo) {
    if (cache.size >= 3000) {
      // the oldest entries go (a Map iterates in insertion order); clearing it all would redraw every visible row
      let n = 0;
      for (const k of cache.keys()) {
        cache.delete(k);
        if (++n >= 300) break;
      }
    }
    cache.set(text, html);
  }
  return html;
}

const warmQueue: string[] = [];
let warming = false;

/**
 * Renders texts into the cache ahead of time, in idle time a few milliseconds at a time (the first ones first): an
 * older page of a conversation is rendered before its rows are scrolled into view, so drawing them costs only the
 * DOM. A text still waiting when its row is drawn is rendered then, as before.
 */
export function warmMarkdown(texts: string[]) {
  for (const t of texts) if (!cache.has(t)) warmQueue.push(t);
  if (warming || warmQueue.length === 0) return;
  warming = true;
  const step = () => idle((deadline) => {
    const start = performance.now();
    while (warmQueue.length && performance.now() - start < Math.min(6, Math.max(1, deadline.timeRemaining()))) {
      const t = warmQueue.shift()!;
      if (!cache.has(t)) renderMarkdown(t);
    }
    if (warmQueue.length) step();
    else warming = false;
  });
  step();
}

/** Blocks over this size stay plain (highlighting them costs more than it helps). */
const HIGHLIGHT_MAX = 20_000;
let worker: Worker | null | undefined;
let nextId = 1;
const pending = new Map<number, { el: HTMLElement; code: string; key: string }>();
/** Highlighted blocks by language and text: a row scrolled out and back in is not sent again. */
const done = new Map<string, string>();
function remember(key: string, html: string) {
  if (done.size >= 500) done.delete(done.keys().next().value!);
  done.set(key, html);
}
function startApplying() {
  if (!applying) {
    applying = true;
    idle(applyStep);
  }
}
const apply: { el: HTMLElement; code: string; html: string }[] = [];
let applying = false;

function highlighter(): Worker | null {
  if (worker === undefined) {
    try {
      worker = new Worker(new URL('./hl-worker.ts', import.meta.url), { type: 'module', name: 'highlight' });
      worker.onmessage = (e: MessageEvent<{ id: number; html: string | null }>) => {
        const job = pending.get(e.data.id);
        pending.delete(e.data.id);
        if (job && e.data.html !== null) {
          remember(job.key, e.data.html);
          apply.push({ el: job.el, code: job.code, html: e.data.html });
          startApplying();
        }
      };
      worker.onerror = () => {
        worker = null; // code stays plain
      };
    } catch {
      worker = null;
    }
  }
  return worker;
}

/** Puts highlighted HTML in place in idle time, a few blocks at a time (each is one innerHTML of a few KB). */
function applyStep(deadline: { timeRemaining: () => number }) {
  const start = performance.now();
  while (apply.length && performance.now() - start < Math.min(4, Math.max(1, deadline.timeRemaining()))) {
    const { el, code, html } = apply.shift()!;
    // the row may be gone (scrolled away) or re-rendered with other text meanwhile
    if (el.isConnected && el.textContent === code) {
      el.innerHTML = html;
      el.classList.add('hljs');
    }
  }
  if (apply.length) idle(applyStep);
  else applying = false;
}

/**
 * Highlights the code blocks inside an element, later: the text goes to a worker (highlight.js, a chunk of its own,
 * runs there), and the answer is put in place in idle time, so drawing rows while scrolling or streaming never
 * waits for highlighting, and no grammar is compiled on the page's thread.
 */
export function highlightIn(el: HTMLElement) {
  const blocks = el.querySelectorAll<HTMLElement>('pre code:not([data-hl])');
  if (blocks.length === 0) return;
  const w = highlighter();
  if (!w) return;
  blocks.forEach((b) => {
    b.setAttribute('data-hl', '1');
    const code = b.textContent ?? '';
    const lang = [...b.classList].find((c) => c.startsWith('language-'))?.slice(9) ?? '';
    if (!lang || code.length > HIGHLIGHT_MAX) return;
    const key = lang + '\n' + code;
    const html = done.get(key);
    if (html !== undefined) {
      apply.push({ el: b, code, html });
      startApplying();
      return;
    }
    const id = nextId++;
    pending.set(id, { el: b, code, key });
    w.postMessage({ id, code, lang });
  });
}

type Idle = (cb: (d: { timeRemaining: () => number }) => void) => void;
const idle: Idle = (globalThis as { requestIdleCallback?: Idle }).requestIdleCallback
  ?? ((cb) => setTimeout(() => cb({ timeRemaining: () => 8 }), 16));


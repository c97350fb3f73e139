// Markdown to sanitized HTML (marked, then DOMPurify), and code highlighting loaded lazily (highlight.js is a chunk
// of its own, fetched the first time a code block is shown).
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

let hljs: Promise<typeof import('./highlight')> | null = null;
const queue: HTMLElement[] = [];
let scheduled = false;

/**
 * Highlights the code blocks inside an element, later: blocks are queued and highlighted in idle time, a few
 * milliseconds at a time, so drawing rows while scrolling or streaming never waits for highlighting.
 */
export function highlightIn(el: HTMLElement) {
  const blocks = el.querySelectorAll<HTMLElement>('pre code:not([data-hl])');
  if (blocks.length === 0) return;
  blocks.forEach((b) => queue.push(b));
  hljs ??= import('./highlight');
  if (!scheduled) {
    scheduled = true;
    hljs.then(drain).catch(() => undefined);
  }
}

type Idle = (cb: (d: { timeRemaining: () => number }) => void) => void;
const idle: Idle = (globalThis as { requestIdleCallback?: Idle }).requestIdleCallback
  ?? ((cb) => setTimeout(() => cb({ timeRemaining: () => 8 }), 16));

function drain(m: typeof import('./highlight')) {
  idle((deadline) => {
    const start = performance.now();
    while (queue.length && performance.now() - start < Math.min(8, Math.max(2, deadline.timeRemaining()))) {
      const b = queue.shift()!;
      if (b.isConnected && !b.hasAttribute('data-hl')) m.highlight(b);
    }
    if (queue.length) drain(m);
    else scheduled = false;
  });
}

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
    if (cache.size > 2000) cache.clear();
    cache.set(text, html);
  }
  return html;
}

let hljs: Promise<typeof import('./highlight')> | null = null;

/** Highlights the code blocks inside an element once. */
export function highlightIn(el: HTMLElement) {
  const blocks = el.querySelectorAll<HTMLElement>('pre code:not([data-hl])');
  if (blocks.length === 0) return;
  hljs ??= import('./highlight');
  hljs.then((m) => blocks.forEach((b) => m.highlight(b))).catch(() => undefined);
}

// The code highlighting worker: gets {id, code, lang}, answers {id, html} (html null: left plain). markdown.ts starts
// it the first time a finished message with a code block is drawn.
import { highlightCode } from './highlight';

const scope = self as unknown as { onmessage: ((e: MessageEvent) => void) | null; postMessage: (m: unknown) => void };
scope.onmessage = (e: MessageEvent<{ id: number; code: string; lang: string }>) => {
  const { id, code, lang } = e.data;
  let html: string | null = null;
  try {
    html = highlightCode(code, lang);
  } catch {
    html = null;
  }
  scope.postMessage({ id, html });
};

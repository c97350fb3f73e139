// The page's CSP allows no inline <style> element, and both CodeMirror (style-mod, on a document) and xterm.js
// write their styles into <style> elements by setting textContent. Once the editor or terminal chunk is loaded,
// document.createElement('style') returns a hidden stand-in whose textContent goes into a constructed style sheet
// (document.adoptedStyleSheets), which the CSP allows. Nothing else in the app creates style elements.
let installed = false;

export function installCspStyleShim(doc: Document = document) {
  if (installed || typeof CSSStyleSheet === 'undefined' || !('adoptedStyleSheets' in doc)) return;
  installed = true;
  const original = doc.createElement;
  doc.createElement = function (this: Document, tag: string, options?: ElementCreationOptions) {
    if (String(tag).toLowerCase() !== 'style') return original.call(this, tag, options);
    const el = original.call(this, 'aw-style') as HTMLElement;
    el.hidden = true;
    const sheet = new CSSStyleSheet();
    let text = '';
    let attached = false;
    const attach = () => {
      if (!attached) {
        doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
        attached = true;
      }
    };
    Object.defineProperty(el, 'textContent', {
      get: () => text,
      set: (v: string | null) => {
        text = v ?? '';
        try {
          sheet.replaceSync(text);
        } catch {
          /* a rule the browser rejects */
        }
        attach();
      },
    });
    Object.defineProperty(el, 'sheet', { get: () => sheet });
    const remove = el.remove.bind(el);
    el.remove = () => {
      doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
      attached = false;
      remove();
    };
    return el;
  } as typeof doc.createElement;
}

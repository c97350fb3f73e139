// CodeMirror 6, loaded the first time a file is opened (a chunk of its own); each language mode is a further chunk,
// fetched for the first file with its extension. CodeMirror writes its styles into a <style> element, which the
// CSP refuses: cspstyle.ts turns that element's text into a constructed style sheet.
import { Compartment, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, foldGutter, foldKeymap, indentOnInput, syntaxHighlighting, type LanguageSupport } from '@codemirror/language';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { installCspStyleShim } from './cspstyle';

installCspStyleShim();

type Loader = () => Promise<LanguageSupport>;
const js = (o: { jsx?: boolean; typescript?: boolean }): Loader => () => import('@codemirror/lang-javascript').then((m) => m.javascript(o));
const LANGS: Record<string, Loader> = {
  js: js({}), mjs: js({}), cjs: js({}), jsx: js({ jsx: true }),
  ts: js({ typescript: true }), mts: js({ typescript: true }), tsx: js({ jsx: true, typescript: true }),
  json: () => import('@codemirror/lang-json').then((m) => m.json()),
  py: () => import('@codemirror/lang-python').then((m) => m.python()),
  java: () => import('@codemirror/lang-java').then((m) => m.java()),
  kt: () => import('@codemirror/lang-java').then((m) => m.java()),
  md: () => import('@codemirror/lang-markdown').then((m) => m.markdown()),
  html: () => import('@codemirror/lang-html').then((m) => m.html()),
  htm: () => import('@codemirror/lang-html').then((m) => m.html()),
  xml: () => import('@codemirror/lang-html').then((m) => m.html()),
  css: () => import('@codemirror/lang-css').then((m) => m.css()),
  scss: () => import('@codemirror/lang-css').then((m) => m.css()),
  rs: () => import('@codemirror/lang-rust').then((m) => m.rust()),
  go: () => import('@codemirror/lang-go').then((m) => m.go()),
  yaml: () => import('@codemirror/lang-yaml').then((m) => m.yaml()),
  yml: () => import('@codemirror/lang-yaml').then((m) => m.yaml()),
  sql: () => import('@codemirror/lang-sql').then((m) => m.sql()),
};

export function languageFor(path: string): Loader | undefined {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return path.includes('.') ? LANGS[ext] : undefined;
}

export interface EditorHooks {
  onSave: () => void;
  onChange: () => void;
}

export function createEditor(parent: HTMLElement, doc: string, path: string, hooks: EditorHooks): EditorView {
  const lang = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), foldGutter(), history(), drawSelection(), indentOnInput(),
        bracketMatching(), highlightActiveLine(), highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => (hooks.onSave(), true) },
          ...defaultKeymap, ...historyKeymap, ...searchKeymap, ...foldKeymap, indentWithTab,
        ]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) hooks.onChange();
        }),
        EditorView.contentAttributes.of({ 'aria-label': `Contents of ${path}` }),
        lang.of([]),
      ],
    }),
  });
  const load = languageFor(path);
  if (load) {
    load().then((l) => view.dispatch({ effects: lang.reconfigure(l) })).catch(() => { /* plain text */ });
  }
  return view;
}

export function text(view: EditorView) {
  return view.state.doc.toString();
}

export function replace(view: EditorView, doc: string) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc } });
}

// The diff viewer: one foldable block per file, unified or side by side. Files over a threshold (gitdiff.ts) show
// "Load anyway" instead of their lines, and the blocks are drawn a batch per frame, so a change set of thousands of
// files never blocks the page for long.
import { memo } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { DiffParser, diffLines, isLarge, parseDiff, sideBySide, type DiffFile, type DiffRow } from './gitdiff';
import './diffview.css';

const BATCH = 25;
/** A diff up to this many characters is read at once; a bigger one in slices of SLICE_MS between frames. */
const SYNC_CHARS = 64 * 1024;
const SLICE_MS = 8;

/** The files of a diff: at once for a small one, else read a slice at a time (null until read), never one long task. */
function useParsedDiff(text: string): DiffFile[] | null {
  const [parsed, setParsed] = useState<{ text: string; files: DiffFile[] } | null>(() => (text.length <= SYNC_CHARS ? { text, files: parseDiff(text) } : null));
  useEffect(() => {
    if (parsed?.text === text) return;
    if (text.length <= SYNC_CHARS) {
      setParsed({ text, files: parseDiff(text) });
      return;
    }
    setParsed(null);
    const lines = diffLines(text);
    const parser = new DiffParser();
    let i = 0;
    let timer = 0;
    const step = () => {
      const end = performance.now() + SLICE_MS;
      while (i < lines.length) {
        parser.line(lines[i++]);
        if ((i & 255) === 0 && performance.now() > end) break;
      }
      if (i < lines.length) timer = window.setTimeout(step, 0);
      else setParsed({ text, files: parser.files });
    };
    timer = window.setTimeout(step, 0);
    return () => clearTimeout(timer);
  }, [text]);
  return parsed?.text === text ? parsed.files : null;
}
/** In a change set of more files than this, the files after the first OPEN_FIRST start folded (one line each). */
const OPEN_FIRST = 100;

export function DiffView({ text, truncated, mode }: { text: string; truncated?: boolean; mode: 'unified' | 'split' }) {
  const files = useParsedDiff(text);
  const [count, setCount] = useState(BATCH);
  useEffect(() => setCount(BATCH), [files]);
  useEffect(() => {
    if (!files || count >= files.length) return;
    const id = requestAnimationFrame(() => setCount((c) => c + BATCH));
    return () => cancelAnimationFrame(id);
  }, [count, files]);
  if (!files) return <p class="muted pad-s" role="status">Reading the diff ({Math.round(text.length / 1024).toLocaleString()} KB)…</p>;
  if (files.length === 0) return <p class="muted pad-s">No changes.</p>;
  const adds = files.reduce((a, f) => a + f.additions, 0);
  const dels = files.reduce((a, f) => a + f.deletions, 0);
  return (
    <div class="diffview">
      <p class="small muted pad-s">
        {files.length} file{files.length === 1 ? '' : 's'} changed, <span class="dv-add">+{adds}</span> <span class="dv-del">−{dels}</span>
        {truncated && <strong> — the diff was cut at the server's 1 MiB limit</strong>}
      </p>
      {files.length > OPEN_FIRST && <p class="small muted pad-s">The first {OPEN_FIRST} files are unfolded; open the others one by one.</p>}
      {files.slice(0, count).map((f, i) => <FileBlock key={f.path + f.header[0]} file={f} mode={mode} initiallyOpen={i < OPEN_FIRST} />)}
      {count < files.length && <p class="muted pad-s">Loading {files.length - count} more files…</p>}
    </div>
  );
}

const FileBlock = memo(function FileBlock({ file, mode, initiallyOpen }: { file: DiffFile; mode: 'unified' | 'split'; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const [anyway, setAnyway] = useState(false);
  const large = isLarge(file) && !anyway;
  return (
    <details class="dv-file" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        <span class="path" title={file.path}>{file.path}</span>
        {file.status !== 'modified' && <span class="badge">{file.status}</span>}
        <span class="dv-add">+{file.additions}</span>
        <span class="dv-del">−{file.deletions}</span>
      </summary>
      {open && (file.status === 'binary' ? (
        <p class="muted small pad-s">Binary file: no text diff.</p>
      ) : large ? (
        <p class="pad-s small">
          A large diff ({file.lineCount.toLocaleString()} lines) is not shown at once.{' '}
          <button class="link" onClick={() => setAnyway(true)}>Load anyway</button>
        </p>
      ) : (
        <table class="dv-table" aria-label={`Changes in ${file.path}`}>
          <tbody>
            {file.hunks.map((h, hi) => [
              <tr key={'h' + hi} class="hunk"><td colSpan={mode === 'split' ? 4 : 3}>{h.header}</td></tr>,
              ...(mode === 'split'
                ? sideBySide(h).map((r, i) => (
                  <tr key={hi + ':' + i}>
                    <td class="no">{r.left?.oldNo ?? ''}</td>
                    <td class={r.left?.op === '-' ? 'del' : ''}>{r.left?.text ?? ''}</td>
                    <td class="no">{r.right?.newNo ?? ''}</td>
                    <td class={r.right?.op === '+' ? 'add' : ''}>{r.right?.text ?? ''}</td>
                  </tr>
                ))
                : h.lines.map((r, i) => <UnifiedRow key={hi + ':' + i} r={r} />)),
            ])}
          </tbody>
        </table>
      ))}
    </details>
  );
});

function UnifiedRow({ r }: { r: DiffRow }) {
  const cls = r.op === '+' ? 'add' : r.op === '-' ? 'del' : '';
  return (
    <tr>
      <td class="no">{r.oldNo ?? ''}</td>
      <td class="no">{r.newNo ?? ''}</td>
      <td class={cls}>{(r.op === '\\' ? '\\' : r.op) + r.text}</td>
    </tr>
  );
}

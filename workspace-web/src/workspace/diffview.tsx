// The diff viewer: one foldable block per file, unified or side by side. Files over a threshold (gitdiff.ts) show
// "Load anyway" instead of their lines, and the blocks are drawn a batch per frame, so a change set of thousands of
// files never blocks the page for long.
import { memo } from 'preact/compat';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { isLarge, parseDiff, sideBySide, type DiffFile, type DiffRow } from './gitdiff';
import './diffview.css';

const BATCH = 25;
/** In a change set of more files than this, the files after the first OPEN_FIRST start folded (one line each). */
const OPEN_FIRST = 100;

export function DiffView({ text, truncated, mode }: { text: string; truncated?: boolean; mode: 'unified' | 'split' }) {
  const files = useMemo(() => parseDiff(text), [text]);
  const [count, setCount] = useState(BATCH);
  useEffect(() => setCount(BATCH), [files]);
  useEffect(() => {
    if (count >= files.length) return;
    const id = requestAnimationFrame(() => setCount((c) => c + BATCH));
    return () => cancelAnimationFrame(id);
  }, [count, files]);
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

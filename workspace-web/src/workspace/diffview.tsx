// The diff viewer: one foldable block per file, unified or side by side. Files over a threshold (gitdiff.ts) show
// "Load anyway" instead of their lines, and the blocks are drawn a group per frame while the end of the list is near
// the view, so a change set of thousands of files never blocks the page for long and draws only what is looked at.
// The groups are memo'd: a frame draws its new group and leaves the ones drawn before alone (reconciling every
// block drawn so far made each frame slower than the last).
import { memo } from 'preact/compat';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DiffParser, diffLines, isLarge, parseDiff, sideBySide, type DiffFile, type DiffRow } from './gitdiff';
import './diffview.css';

/** Files per group: small while the blocks are unfolded (each draws its table), larger for the folded ones. */
const OPEN_GROUP = 20;
const FOLDED_GROUP = 100;
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

/** The element that scrolls `el` (the intersection observer's root), or null for the page. */
function scrollParent(el: HTMLElement): HTMLElement | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if (o === 'auto' || o === 'scroll') return p;
  }
  return null;
}

/** The files in groups: OPEN_GROUP at a time up to OPEN_FIRST, then FOLDED_GROUP at a time. */
export function groupFiles(files: DiffFile[]): DiffFile[][] {
  const groups: DiffFile[][] = [];
  for (let i = 0; i < files.length;) {
    const n = i < OPEN_FIRST ? Math.min(OPEN_GROUP, OPEN_FIRST - i) : FOLDED_GROUP;
    groups.push(files.slice(i, i + n));
    i += n;
  }
  return groups;
}

export function DiffView({ text, truncated, mode }: { text: string; truncated?: boolean; mode: 'unified' | 'split' }) {
  const files = useParsedDiff(text);
  const groups = useMemo(() => (files ? groupFiles(files) : []), [files]);
  // a big diff's first group is drawn in the frame after it was read, not in the task that read its last slice
  const first = text.length <= SYNC_CHARS ? 1 : 0;
  const [shown, setShown] = useState(first);
  useEffect(() => setShown(first), [files]);
  // groups are drawn while the end of the list is within a screen or two of the view: a change set of thousands of
  // files draws what is looked at, a group a frame, not all of it at once
  const sentinel = useRef<HTMLParagraphElement>(null);
  const [near, setNear] = useState(true);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setNear(entries[entries.length - 1].isIntersecting), { root: scrollParent(el), rootMargin: '1200px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [groups, shown < groups.length]);
  useEffect(() => {
    if (shown >= groups.length || !near) return;
    const id = requestAnimationFrame(() => setShown((c) => c + 1));
    return () => cancelAnimationFrame(id);
  }, [shown, groups, near]);
  let count = 0;
  for (let g = 0; g < shown && g < groups.length; g++) count += groups[g].length;
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
      {groups.slice(0, shown).map((g, gi) => <Group key={gi} files={g} open={gi * OPEN_GROUP < OPEN_FIRST} mode={mode} />)}
      {count < files.length && <p class="muted pad-s" ref={sentinel}>Loading {files.length - count} more files…</p>}
    </div>
  );
}

const Group = memo(function Group({ files, open, mode }: { files: DiffFile[]; open: boolean; mode: 'unified' | 'split' }) {
  return <>{files.map((f) => <FileBlock key={f.path + f.header[0]} file={f} mode={mode} initiallyOpen={open} />)}</>;
});

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

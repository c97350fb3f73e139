// Parsing `git diff` output (what GET /api/git/diff returns) into files and hunks, for the diff viewer: per-file
// folding, a "load anyway" gate for big files, and side-by-side rows. Pure functions, unit tested.
export interface DiffFile {
  /** The path shown: the new name, or the old one for a deletion. */
  path: string;
  oldPath: string | null;
  newPath: string | null;
  status: 'modified' | 'added' | 'deleted' | 'binary';
  /** Header lines (diff --git, index, ---, +++, mode lines). */
  header: string[];
  hunks: Hunk[];
  additions: number;
  deletions: number;
  /** Lines in the hunks, and characters of the whole file section. */
  lineCount: number;
  chars: number;
}

export interface Hunk {
  header: string;
  lines: DiffRow[];
}

export interface DiffRow {
  op: '+' | '-' | ' ' | '\\';
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

/** Over this many lines or characters a file's diff is shown only on request. */
export const LARGE_LINES = 500;
export const LARGE_CHARS = 256 * 1024;

export function isLarge(f: DiffFile) {
  return f.lineCount > LARGE_LINES || f.chars > LARGE_CHARS;
}

function unquote(p: string) {
  // git quotes names with special characters: "a\tb"
  if (p.startsWith('"') && p.endsWith('"')) {
    try {
      return JSON.parse(p.replace(/\\([0-7]{3})/g, (_, o) => '\\u00' + parseInt(o, 8).toString(16).padStart(2, '0')));
    } catch {
      return p.slice(1, -1);
    }
  }
  return p;
}

function side(line: string, prefix: string): string | null {
  // "--- a/path", "+++ b/path", "--- /dev/null"; git adds a tab after names holding a space
  let p = line.slice(4).replace(/\t$/, '');
  if (p === '/dev/null') return null;
  p = unquote(p);
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

export function parseDiff(text: string): DiffFile[] {
  const p = new DiffParser();
  for (const line of diffLines(text)) p.line(line);
  return p.files;
}

/** The lines of a diff, without the empty string after its final newline. */
export function diffLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** parseDiff one line at a time, so a big diff can be read in slices between frames (diffview.tsx). */
export class DiffParser {
  readonly files: DiffFile[] = [];
  private f: DiffFile | null = null;
  private h: Hunk | null = null;
  private oldNo = 0;
  private newNo = 0;

  line(line: string) {
    let f = this.f;
    const h = this.h;
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git (?:"?a\/)(.*?)"? (?:"?b\/)(.*?)"?$/.exec(line);
      const name = m ? m[2] : line.slice(11);
      f = this.f = { path: name, oldPath: m ? m[1] : name, newPath: name, status: 'modified', header: [line], hunks: [], additions: 0, deletions: 0, lineCount: 0, chars: 0 };
      this.files.push(f);
      this.h = null;
    } else if (!f) {
      return;
    } else if (line.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      this.oldNo = m ? Number(m[1]) : 0;
      this.newNo = m ? Number(m[2]) : 0;
      this.h = { header: line, lines: [] };
      f.hunks.push(this.h);
    } else if (h && (line[0] === '+' || line[0] === '-' || line[0] === ' ' || line[0] === '\\' || line === '')) {
      const op = (line[0] ?? ' ') as DiffRow['op'];
      const row: DiffRow = { op, text: line.slice(1), oldNo: null, newNo: null };
      if (op === '+') {
        row.newNo = this.newNo++;
        f.additions++;
      } else if (op === '-') {
        row.oldNo = this.oldNo++;
        f.deletions++;
      } else if (op === ' ') {
        row.oldNo = this.oldNo++;
        row.newNo = this.newNo++;
      }
      h.lines.push(row);
      f.lineCount++;
    } else {
      f.header.push(line);
      if (line.startsWith('--- ')) f.oldPath = side(line, 'a/');
      else if (line.startsWith('+++ ')) f.newPath = side(line, 'b/');
      else if (line.startsWith('new file mode')) f.status = 'added';
      else if (line.startsWith('deleted file mode')) f.status = 'deleted';
      else if (line.startsWith('Binary files ')) f.status = 'binary';
      f.path = f.newPath ?? f.oldPath ?? f.path;
    }
    f.chars += line.length + 1;
  }
}

export interface SideRow {
  left: DiffRow | null;
  right: DiffRow | null;
}

/** Side-by-side rows of a hunk: a run of deletions is paired with the run of additions that follows it. */
export function sideBySide(h: Hunk): SideRow[] {
  const out: SideRow[] = [];
  const rows = h.lines;
  let i = 0;
  while (i < rows.length) {
    const r = rows[i];
    if (r.op === '-' || r.op === '+') {
      const dels: DiffRow[] = [];
      const adds: DiffRow[] = [];
      while (i < rows.length && rows[i].op === '-') dels.push(rows[i++]);
      while (i < rows.length && rows[i].op === '+') adds.push(rows[i++]);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) out.push({ left: dels[k] ?? null, right: adds[k] ?? null });
    } else {
      out.push(r.op === '\\' ? { left: r, right: null } : { left: r, right: r });
      i++;
    }
  }
  return out;
}

import { describe, expect, it } from 'vitest';
import { activate, defaultLayout, loadLayout, MIN_SIZE, parseLayout, resize, saveLayout, toggle } from './layout';
import { isLarge, parseDiff, sideBySide } from './gitdiff';
import { agentChangedPaths } from '../tools';
import { groupFiles } from './diffview';
import type { Item } from '../thread';
import { agentChanged, holdsAny, setAgentChanged } from './agentchanged';

const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);

describe('layout', () => {
  it('opens panels in a fixed order with even shares and closes them', () => {
    let l = toggle(defaultLayout(), 'git');
    expect(l.open).toEqual(['chat', 'git']);
    expect(l.sizes).toEqual([0.5, 0.5]);
    expect(l.active).toBe('git');
    l = toggle(l, 'files');
    expect(l.open).toEqual(['chat', 'files', 'git']);
    expect(sum(l.sizes)).toBeCloseTo(1);
    expect(l.sizes[1]).toBeCloseTo(1 / 3);
    l = toggle(l, 'chat');
    expect(l.open).toEqual(['files', 'git']);
    expect(sum(l.sizes)).toBeCloseTo(1);
    expect(toggle(toggle(l, 'files'), 'git').open).toEqual(['git']); // the last panel stays
  });

  it('a phone tab activates a closed panel by opening it', () => {
    const l = activate(defaultLayout(), 'terminal');
    expect(l.active).toBe('terminal');
    expect(l.open).toContain('terminal');
    expect(activate(l, 'chat').open).toEqual(l.open);
  });

  it('resizing keeps every panel at its minimum and the total at 1', () => {
    let l = toggle(defaultLayout(), 'files');
    l = resize(l, 0, 0.9);
    expect(l.sizes[1]).toBeCloseTo(MIN_SIZE);
    expect(sum(l.sizes)).toBeCloseTo(1);
    l = resize(l, 0, -5);
    expect(l.sizes[0]).toBeCloseTo(MIN_SIZE);
    expect(resize(l, 1, 0.1)).toBe(l); // no border after the last panel
  });

  it('a stored layout is checked, and remembered per project', () => {
    expect(parseLayout('nonsense')).toEqual(defaultLayout());
    expect(parseLayout('{"open":["evil"],"sizes":[1]}')).toEqual(defaultLayout());
    expect(parseLayout('{"open":["git","chat"],"sizes":[3,1],"active":"git"}')).toEqual({ open: ['chat', 'git'], sizes: [0.75, 0.25], active: 'git' });
    const m = new Map<string, string>();
    const store = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    saveLayout('p1', toggle(defaultLayout(), 'git'), store);
    expect(loadLayout('p1', store).open).toEqual(['chat', 'git']);
    expect(loadLayout('p2', store)).toEqual(defaultLayout());
  });
});

const sample = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 1234567..89abcde 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,4 +1,4 @@',
  ' one',
  '-two',
  '-three',
  '+TWO',
  ' four',
  '\\ No newline at end of file',
  'diff --git a/new file.txt b/new file.txt',
  'new file mode 100644',
  'index 0000000..1111111',
  '--- /dev/null',
  '+++ b/new file.txt\t',
  '@@ -0,0 +1 @@',
  '+hello',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  'diff --git a/img.png b/img.png',
  'index 1..2 100644',
  'Binary files a/img.png and b/img.png differ',
  '',
].join('\n');

describe('git diff parsing', () => {
  it('splits files with their kind, counts and line numbers', () => {
    const files = parseDiff(sample);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['src/app.ts', 'modified', 1, 2],
      ['new file.txt', 'added', 1, 0],
      ['gone.txt', 'deleted', 0, 1],
      ['img.png', 'binary', 0, 0],
    ]);
    const rows = files[0].hunks[0].lines;
    expect(rows.map((r) => [r.op, r.oldNo, r.newNo])).toEqual([
      [' ', 1, 1], ['-', 2, null], ['-', 3, null], ['+', null, 2], [' ', 4, 3], ['\\', null, null],
    ]);
    expect(files[2].oldPath).toBe('gone.txt');
    expect(files[2].newPath).toBeNull();
  });

  it('pairs deletions with the additions after them side by side', () => {
    const rows = sideBySide(parseDiff(sample)[0].hunks[0]);
    expect(rows.map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['one', 'one'], ['two', 'TWO'], ['three', null], ['four', 'four'], [' No newline at end of file', null],
    ]);
  });

  it('flags big files and parses a 2,000-file change set quickly', () => {
    const big = ['diff --git a/b b/b', '--- a/b', '+++ b/b', '@@ -1,600 +1,600 @@', ...Array.from({ length: 600 }, (_, i) => '+l' + i)].join('\n');
    expect(isLarge(parseDiff(big)[0])).toBe(true);
    expect(isLarge(parseDiff(sample)[0])).toBe(false);
    const many = Array.from({ length: 2000 }, (_, i) => `diff --git a/f${i} b/f${i}\n--- a/f${i}\n+++ b/f${i}\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n`).join('');
    const t = performance.now();
    const files = parseDiff(many);
    expect(files.length).toBe(2000);
    expect(performance.now() - t).toBeLessThan(500);
  });

  it('empty input is no files', () => {
    expect(parseDiff('')).toEqual([]);
  });
});

describe('files the agent changed (tools.tsx agentChangedPaths, agentchanged.ts)', () => {
  const tool = (toolName: string, input: unknown, extra: Partial<Item> = {}): Item => ({ key: toolName, kind: 'tool', text: '', toolName, input, output: 'ok', ...extra });

  it('reads the path of an edit or a write, whatever the provider calls its field', () => {
    expect(agentChangedPaths(tool('Write', { file_path: '/p/hello.txt', content: 'x' }))).toEqual(['/p/hello.txt']);
    expect(agentChangedPaths(tool('write_file', { file_path: 'src/a.ts', content: 'x' }))).toEqual(['src/a.ts']);
    expect(agentChangedPaths(tool('edit', { filePath: '/p/b.ts', oldString: 'a', newString: 'b' }))).toEqual(['/p/b.ts']);
    expect(agentChangedPaths(tool('MultiEdit', { file_path: '/p/c.ts', edits: [] }))).toEqual(['/p/c.ts']);
  });

  it("reads apply_patch's files and codex's file_change", () => {
    const patch = '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** Delete File: old.ts\n*** End Patch\n';
    expect(agentChangedPaths(tool('apply_patch', { input: patch }))).toEqual(['src/x.ts', 'src/new.ts', 'old.ts']);
    expect(agentChangedPaths(tool('file_change', { changes: [{ path: '/p/hello.txt', kind: 'add' }, { path: '/p/b.txt', kind: 'update' }] })))
      .toEqual(['/p/hello.txt', '/p/b.txt']);
  });

  it('does not count reads, shell commands, failed calls or other items', () => {
    expect(agentChangedPaths(tool('Read', { file_path: '/p/hello.txt' }))).toEqual([]);
    expect(agentChangedPaths(tool('Bash', { command: 'echo hi > /p/a.txt' }))).toEqual([]);
    expect(agentChangedPaths(tool('Write', { file_path: '/p/hello.txt' }, { isError: true }))).toEqual([]);
    expect(agentChangedPaths({ key: 'u', kind: 'user', text: 'Write file_path=/p/a.txt' })).toEqual([]);
  });

  it('keeps one set per project and marks the folders that hold a path', () => {
    setAgentChanged('p1', new Set(['src/a.ts', 'hello.txt']));
    expect([...agentChanged('p1')]).toEqual(['src/a.ts', 'hello.txt']);
    expect(agentChanged('p2').size).toBe(0);
    expect(holdsAny('src', agentChanged('p1'))).toBe(true);
    expect(holdsAny('sr', agentChanged('p1'))).toBe(false);
    setAgentChanged('p1', new Set());
    expect(agentChanged('p1').size).toBe(0);
  });
});

describe('the diff view draws a change set in groups (diffview.tsx)', () => {
  it('20 files a group while unfolded (the first 100), then 100 a group', () => {
    const text = Array.from({ length: 2000 }, (_, i) => `diff --git a/f${i} b/f${i}\n--- a/f${i}\n+++ b/f${i}\n@@ -1 +1 @@\n-a\n+b\n`).join('');
    const files = parseDiff(text);
    const groups = groupFiles(files);
    expect(groups.map((g) => g.length)).toEqual([20, 20, 20, 20, 20, ...Array(19).fill(100)]);
    expect(groups.flat()).toEqual(files);
    expect(groupFiles(files.slice(0, 7)).map((g) => g.length)).toEqual([7]);
  });
});

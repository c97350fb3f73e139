import { describe, expect, it } from 'vitest';
import { lineDiff } from './diff';
import { parseRoute, sessionPath } from './router';
import { toolKind } from './tools';

describe('router', () => {
  it('parses deep links and builds them back', () => {
    const p = sessionPath('my proj-1a2b3c4d', 'abc/def', 'claude', 'm1');
    expect(parseRoute(p.split('?')[0], '?' + p.split('?')[1])).toEqual({ name: 'session', project: 'my proj-1a2b3c4d', sessionId: 'abc/def', provider: 'claude', messageId: 'm1' });
    expect(parseRoute('/')).toEqual({ name: 'home' });
    expect(parseRoute('/projects/p/new')).toEqual({ name: 'new-chat', project: 'p' });
    expect(parseRoute('/nope/x').name).toBe('not-found');
  });
});

describe('lineDiff', () => {
  it('keeps common lines and marks changes', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc')).toEqual([
      { op: '=', text: 'a' }, { op: '-', text: 'b' }, { op: '+', text: 'B' }, { op: '=', text: 'c' },
    ]);
  });
  it('huge inputs fall back to blocks without quadratic work', () => {
    const big = Array.from({ length: 5000 }, (_, i) => 'line ' + i).join('\n');
    const d = lineDiff(big, big + '\nmore');
    expect(d.length).toBe(10001);
  });
});

describe('toolKind', () => {
  it('maps every provider\'s names to one kind', () => {
    expect(toolKind('Bash')).toBe('shell');
    expect(toolKind('exec_command')).toBe('shell');
    expect(toolKind('run_shell_command')).toBe('shell');
    expect(toolKind('Edit')).toBe('edit');
    expect(toolKind('apply_patch')).toBe('edit');
    expect(toolKind('write_file')).toBe('write');
    expect(toolKind('Read')).toBe('read');
    expect(toolKind('Grep')).toBe('search');
    expect(toolKind('TodoWrite')).toBe('todo');
    expect(toolKind('mcp__x__y')).toBe('other');
  });
});

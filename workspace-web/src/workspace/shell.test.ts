import { describe, expect, it } from 'vitest';
import { ShellConnection, type ShellState } from './shell';
import { parseTerminals } from './termstore';

function conn() {
  const out: string[] = [];
  const states: ShellState[] = [];
  const c = new ShellConnection('p', () => ({ cols: 80, rows: 24 }), { output: (d) => out.push(d), state: (s) => states.push(s) });
  return { c, out, states };
}

describe('the /shell client', () => {
  it('remembers the session and the offset, and applies each byte range once across a replay', () => {
    const { c, out, states } = conn();
    c.frame({ type: 'ready', sessionId: 'sh_1', offset: 0 } as never);
    expect(c.sessionId).toBe('sh_1');
    c.frame({ type: 'output', data: 'abc', offset: 3 } as never);
    c.frame({ type: 'output', data: 'de', offset: 5 } as never);
    // a reattach from offset 5: the server replays from there; an overlapping chunk is not applied again
    c.frame({ type: 'replay-start', from: 5, truncated: false } as never);
    c.frame({ type: 'output', data: 'de', offset: 5 } as never);
    c.frame({ type: 'output', data: 'fg', offset: 7 } as never);
    c.frame({ type: 'replay-end', offset: 7 } as never);
    expect(out.join('')).toBe('abcdefg');
    expect(c.offset).toBe(7);
    c.frame({ type: 'exit', exitCode: 0 } as never);
    expect(states).toEqual(['open', 'exited']);
  });

  it('says when the ring no longer held everything, and when the terminal is gone', () => {
    const { c, out, states } = conn();
    c.frame({ type: 'ready', sessionId: 'sh_2', offset: 0 } as never);
    c.frame({ type: 'replay-start', from: 900, truncated: true } as never);
    expect(out.join('')).toContain('older output was no longer kept');
    c.frame({ type: 'error', status: 404, error: { code: 'SHELL_NOT_FOUND', message: 'gone' } } as never);
    expect(states[states.length - 1]).toBe('failed');
  });
});

describe('terminals kept across a reload', () => {
  it('reattaches to a stored terminal from offset 0, and forgets it once the server no longer has it', () => {
    const out: string[] = [];
    const c = new ShellConnection('p', () => ({ cols: 80, rows: 24 }), { output: (d) => out.push(d), state: () => {} }, 'sh_abc');
    expect(c.sessionId).toBe('sh_abc');
    expect(c.offset).toBe(0);
    // the replay of everything the server still holds is applied, once
    c.frame({ type: 'ready', sessionId: 'sh_abc', offset: 0 } as never);
    c.frame({ type: 'replay-start', from: 0, truncated: false } as never);
    c.frame({ type: 'output', data: 'before the reload', offset: 17 } as never);
    c.frame({ type: 'replay-end', offset: 17 } as never);
    c.frame({ type: 'output', data: 'before the reload', offset: 17 } as never);
    expect(out.join('')).toBe('before the reload');
    c.frame({ type: 'error', status: 404, error: { code: 'SHELL_NOT_FOUND', message: 'gone' } } as never);
    expect(c.sessionId).toBeNull();
    expect(c.state).toBe('failed');
  });

  it('reads only well-formed entries from storage', () => {
    expect(parseTerminals(null)).toEqual([]);
    expect(parseTerminals('not json')).toEqual([]);
    expect(parseTerminals('{"title":"Terminal 1","sessionId":"sh_1"}')).toEqual([]);
    expect(parseTerminals(JSON.stringify([
      { title: 'Terminal 1', sessionId: 'sh_1' },
      { title: 'Terminal 2', sessionId: 'sh_1' }, // the same terminal twice
      { title: 'Terminal 3', sessionId: '../x' },
      { title: 3, sessionId: 'sh_3' },
      { title: 'Terminal 4', sessionId: 'sh_4', token: 'ignored' },
    ]))).toEqual([{ title: 'Terminal 1', sessionId: 'sh_1' }, { title: 'Terminal 4', sessionId: 'sh_4' }]);
    const five = Array.from({ length: 5 }, (_, i) => ({ title: `Terminal ${i}`, sessionId: `sh_${i}` }));
    expect(parseTerminals(JSON.stringify(five))).toHaveLength(4);
  });
});

import { describe, expect, it } from 'vitest';
import type { BrowseListing } from './api';
import { pickerFailed, pickerInitial, pickerListed, pickerRequest, pickerTyped } from './picker';

const home: BrowseListing = { path: '/root', parent: '/', entries: [{ name: 'tmp', type: 'directory' }] };
const tmp: BrowseListing = { path: '/root/tmp', parent: '/root', entries: [] };

describe('folder picker', () => {
  it('is disabled until the first listing, which then fills the path', () => {
    let s = pickerInitial(true);
    expect(s.ready).toBe(false);
    const [s1, n] = pickerRequest(s);
    s = pickerListed(s1, n, home);
    expect(s.ready).toBe(true);
    expect(s.path).toBe('/root');
    expect(s.listing).toBe(home);
  });

  it('never replaces or prefixes what the user typed before the first listing arrived', () => {
    const [s1, n] = pickerRequest(pickerInitial(true));
    const typed = pickerTyped(s1, '/tmp/junit-1/ui-project');
    const s = pickerListed(typed, n, home);
    expect(s.path).toBe('/tmp/junit-1/ui-project');
    expect(s.listing).toBe(home); // the folders are still shown
    expect(s.ready).toBe(true);
  });

  it('a folder chosen in the listing sets the path, unless the user typed while it loaded', () => {
    let [s, n] = pickerRequest(pickerInitial(true));
    s = pickerListed(s, n, home);
    [s, n] = pickerRequest(s); // a click on "tmp"
    expect(pickerListed(s, n, tmp).path).toBe('/root/tmp');
    expect(pickerListed(pickerTyped(s, '/srv/x'), n, tmp).path).toBe('/srv/x');
  });

  it('ignores a stale listing that answers an older request', () => {
    let [s, first] = pickerRequest(pickerInitial(true));
    let second: number;
    [s, second] = pickerRequest(s); // a second click before the first answer
    s = pickerListed(s, second, tmp);
    const after = pickerListed(s, first, home); // the older answer lands last
    expect(after).toBe(s);
    expect(after.path).toBe('/root/tmp');
    expect(pickerFailed(after, first)).toBe(after);
  });

  it('a failed listing still enables the field; without browsing it is ready at once', () => {
    const [s, n] = pickerRequest(pickerInitial(true));
    expect(pickerFailed(s, n).ready).toBe(true);
    expect(pickerInitial(false).ready).toBe(true);
  });
});

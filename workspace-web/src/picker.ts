// The folder picker's state ("Add a project"): the path field and the listing of /api/browse-filesystem. Listings
// arrive late and out of order, so a listing is applied only when it answers the newest request, and it sets the
// path only when the user has not edited the field since that request was made: what the user typed is never
// replaced or prefixed by a listing (the first listing, of the home folder, used to land after the user's typing).
import type { BrowseListing } from './api';

export interface PickerState {
  path: string;
  listing: BrowseListing | null;
  /** The number of the newest listing request (0: none yet). */
  latest: number;
  /** How many edits the user made to the path field; a request remembers the count at its start. */
  edits: number;
  /** The edit count when the newest request started. */
  editsAtRequest: number;
  /** False until the first listing (or its failure) arrived: the field is disabled until then. */
  ready: boolean;
}

/** The state when the dialog opens; `browsing` false (no listing will come: not an administrator) means ready. */
export function pickerInitial(browsing: boolean): PickerState {
  return { path: '', listing: null, latest: 0, edits: 0, editsAtRequest: 0, ready: !browsing };
}

/** A listing request starts; returns the new state and the request's number, to pass to pickerListed. */
export function pickerRequest(s: PickerState): [PickerState, number] {
  const n = s.latest + 1;
  return [{ ...s, latest: n, editsAtRequest: s.edits }, n];
}

/** The user edited the path field. */
export function pickerTyped(s: PickerState, value: string): PickerState {
  return { ...s, path: value, edits: s.edits + 1 };
}

/** A listing arrived for request `n`: ignored when a newer request was made since. */
export function pickerListed(s: PickerState, n: number, listing: BrowseListing): PickerState {
  if (n !== s.latest) return s;
  const keepTyped = s.edits !== s.editsAtRequest;
  return { ...s, listing, path: keepTyped ? s.path : listing.path, ready: true };
}

/** Request `n` failed: the field becomes usable all the same (the path can be typed). */
export function pickerFailed(s: PickerState, n: number): PickerState {
  return n === s.latest ? { ...s, ready: true } : s;
}

/**
 * The list's page position, opaque to clients: the id of the last pet of the previous page. Keyset
 * pagination, so a page never repeats or skips a pet when pets are created between requests.
 */
const PREFIX = 'after:';

/** Cursors made lately, by id: a page's cursor is the same for every client that reads the page. */
const made = new Map<number, string>();
/** Entries kept at most; a full map starts over. */
const MAX_MADE = 4096;

export function encodeCursor(afterId: number): string {
  // Two Buffer round trips cost about 2 us, a twentieth of a list request (npm run bench, profile).
  let cursor = made.get(afterId);
  if (cursor === undefined) {
    cursor = Buffer.from(`${PREFIX}${afterId}`, 'utf8').toString('base64url');
    if (made.size >= MAX_MADE) made.clear();
    made.set(afterId, cursor);
  }
  return cursor;
}

/** The id a cursor stands for, or undefined when it is not one this server issued. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(digits)) return undefined;
  const id = Number(digits);
  return Number.isSafeInteger(id) ? id : undefined;
}

// The store's history judged whole: some order of the operations, consistent with real time, must
// explain every answer (linearizability). The store only grows (the contract shows create, get and
// list, and no update or delete), so its state at any moment is the set of creates that took effect
// before it: each create takes effect at one point of its interval (never, for a refused one; perhaps
// never, perhaps any time after it was sent, for one whose outcome is unknown), and each read reads at
// one point of its own. A pet a read shows was created no later than that point; a pet a complete read
// leaves out was created after it. A finding only where no placement of the points satisfies them all
// (order.ts); the readings that keep it fair are in judge/README.md, The store's history. The API is
// store-history.ts.
import type { Exchange } from '../exchange.ts';
import { contradictions, type Edge, type Interval } from './order.ts';
import { storeOp, type CreateOp, type GetOp, type PageOp, type PetSeen, type StoreOp } from './operations.ts';
import { answer, ms, pet, request, seqs, target } from './words.ts';

export type HistoryRule =
  'ids-unique' | 'fields-kept' | 'refused-invisible' | 'acknowledged-readable' | 'acknowledged-listed' | 'real-time-order' | 'walk-repeats';

export interface HistoryFinding {
  rule: HistoryRule;
  message: string;
  /** the fewest exchanges that show it, in send order */
  exchanges: Exchange[];
}

export interface StoreHistoryOptions {
  /** Which created pets the history may judge by name: conform passes names carrying its run token (other pets in the store are other people's); default: every pet. */
  tracked?: (name: string) => boolean;
}

/**
 * Timestamps are read as whole milliseconds: an event stamped m happened somewhere in [m, m + 1), so
 * two events stamped alike are in no known order.
 */
export const RESOLUTION_MS = 1;

type ReadKind = 'get' | 'page' | 'walk';

interface CreateNode {
  kind: 'create';
  op: CreateOp;
  /** The id its pet has: the acknowledged one, or the one a read showed for an unknown create. */
  id: number | undefined;
  /** Its status: acknowledged, sent, or (unknown create) seen. */
  status: string | undefined;
}

interface ReadNode {
  kind: 'read';
  read: ReadKind;
  exchanges: Exchange[];
  /** Complete reads: the filter every matching pet must be in ('all', a status); for a get, its id as `id:<n>`. */
  complete: string | undefined;
  /** The path before /pets it read under. */
  base: string;
  /** The create nodes it shows. */
  shows: Set<number>;
  /** Why it is complete, in words. */
  why: string;
  /** The names of the pets it shows. */
  names: Set<unknown>;
}

type Node = CreateNode | ReadNode;

interface Label {
  kind: 'shows' | 'lacks';
  read: number;
  create: number;
}

/** Judges a whole finished history (exchanges in any order; each has sentAt/receivedAt on one clock). */
export function judgeStoreHistory(exchanges: readonly Exchange[], options: StoreHistoryOptions = {}): HistoryFinding[] {
  const ops: StoreOp[] = [];
  for (const exchange of exchanges) {
    const op = storeOp(exchange);
    if (op) ops.push(op);
  }
  return judgeOps(ops, options.tracked ?? (() => true), options.tracked !== undefined);
}

const bySend = (a: { exchange: Exchange }, b: { exchange: Exchange }) => a.exchange.sentAt - b.exchange.sentAt || a.exchange.seq - b.exchange.seq;
const inSendOrder = (exchanges: Iterable<Exchange>) => [...new Set(exchanges)].sort((a, b) => a.sentAt - b.sentAt || a.seq - b.seq);

/**
 * The store operations judged together (a whole history, or the proxy's window of it). `vouched`: the tracked names are the caller's own, carried by no pet but those it created (conform's
 * run token). Otherwise a name may be anyone's: a pet with a refused create's name is a finding only
 * where a complete read before it showed no pet of that name.
 */
export function judgeOps(given: readonly StoreOp[], tracked: (name: string) => boolean, vouched: boolean): HistoryFinding[] {
  const ops = [...given].sort(bySend);
  const findings: HistoryFinding[] = [];
  const creates = ops.filter((op): op is CreateOp => op.kind === 'create');
  const gets = ops.filter((op): op is GetOp => op.kind === 'get');
  const pages = ops.filter((op): op is PageOp => op.kind === 'page');
  // Ids another operation (PUT, PATCH, DELETE) may have changed: the store no longer only grows there.
  const written = new Set(ops.flatMap((op) => (op.kind === 'write' ? [op.id] : [])));

  // ids-unique: two acknowledged creates with one id. Neither is judged further: which pet a read shows is unknown.
  const acknowledged = new Map<number, CreateOp[]>();
  for (const c of creates) if (c.pet) push(acknowledged, c.pet.id, c);
  for (const [id, same] of acknowledged) {
    // An id written to (deleted, perhaps) may be given again.
    if (same.length < 2 || written.has(id)) continue;
    for (const later of same.slice(1)) {
      const origin = same[0]!.exchange.sentAt;
      findings.push({
        rule: 'ids-unique',
        message: `two creates were given id ${id}: ${request(same[0]!.exchange)} ${answer(same[0]!.exchange)} at ${ms(same[0]!.exchange.receivedAt, origin)} and ${request(later.exchange)} ${answer(later.exchange)} at ${ms(later.exchange.receivedAt, origin)}`,
        exchanges: inSendOrder([same[0]!.exchange, later.exchange]),
      });
    }
  }
  const byName = new Map<string, CreateOp[]>();
  for (const c of creates) if (c.name !== undefined) push(byName, c.name, c);

  const nodes: Node[] = [];
  const intervals: Interval[] = [];
  const add = (node: Node, interval: Interval) => {
    nodes.push(node);
    intervals.push(interval);
    return nodes.length - 1;
  };
  const createById = new Map<number, number>();
  const unknownByName = new Map<string, number>();
  for (const c of creates) {
    const ex = c.exchange;
    if (c.pet) {
      if (acknowledged.get(c.pet.id)!.length > 1 || written.has(c.pet.id)) continue;
      createById.set(c.pet.id, add({ kind: 'create', op: c, id: c.pet.id, status: c.status }, { lo: ex.sentAt, hi: ex.receivedAt + RESOLUTION_MS }));
    } else if (c.outcome === 'unknown' && c.name !== undefined && tracked(c.name) && byName.get(c.name)!.filter((o) => o.outcome !== 'refused').length === 1) {
      unknownByName.set(c.name, add({ kind: 'create', op: c, id: undefined, status: c.status }, { lo: ex.sentAt, hi: Infinity }));
    }
  }

  // What may have changed the store, and when: a walk is one read only if none of it overlaps the walk.
  const changes = ops
    .filter((op) => (op.kind === 'create' && op.outcome !== 'refused') || op.kind === 'write')
    .map((op) => ({ lo: op.exchange.sentAt, hi: op.kind === 'create' && op.outcome === 'unknown' ? Infinity : op.exchange.receivedAt + RESOLUTION_MS }));
  const quiet = (lo: number, hi: number) => !changes.some((c) => c.lo < hi && c.hi > lo);

  const reported = new Set<string>();
  const once = (finding: HistoryFinding) => {
    const key = `${finding.rule}:${finding.exchanges.map((e) => e.seq).join(',')}`;
    if (reported.has(key)) return;
    reported.add(key);
    findings.push(finding);
  };

  /** A pet a read showed: which create it is, if any, and whether it is the pet that create made. */
  const seeItem = (readIndex: number, item: PetSeen, shown: Exchange) => {
    const read = nodes[readIndex] as ReadNode;
    read.names.add(item.name);
    const known = createById.get(item.id);
    if (known !== undefined) {
      const node = nodes[known] as CreateNode;
      const created = node.op.pet!;
      const name = typeof created.name === 'string' ? created.name : node.op.name;
      if (name !== undefined && tracked(name)) {
        const changed = (['name', 'categoryId', 'status'] as const).filter(
          // A field either answer leaves out (status is optional in Pet) is not compared.
          (field) => item[field] !== undefined && created[field] !== undefined && item[field] !== created[field],
        );
        if (changed.length > 0) {
          const origin = node.op.exchange.sentAt;
          const diffs = changed.map((f) => `${f} ${JSON.stringify(item[f])} where the 201 said ${JSON.stringify(created[f])}`).join(', ');
          once({
            rule: 'fields-kept',
            message: `${pet(node.op, origin)} was shown by ${request(shown)}, sent at ${ms(shown.sentAt, origin)}, with ${diffs}`,
            exchanges: inSendOrder([node.op.exchange, shown]),
          });
        }
      }
      read.shows.add(known);
      return;
    }
    if (typeof item.name !== 'string' || !tracked(item.name)) return;
    const named = byName.get(item.name);
    if (!named) return;
    const unknown = unknownByName.get(item.name);
    if (unknown !== undefined) {
      const node = nodes[unknown] as CreateNode;
      // Answered before the create was sent: another pet of that name.
      if (shown.receivedAt + RESOLUTION_MS <= node.op.exchange.sentAt) return;
      node.id ??= item.id;
      if (node.id !== item.id) return;
      if (node.status === undefined && typeof item.status === 'string') node.status = item.status;
      read.shows.add(unknown);
      return;
    }
    // A refused create changed nothing: a pet with its name is someone else's only if someone else created one.
    const refused = named.filter((c) => c.outcome === 'refused' && c.exchange.sentAt <= shown.receivedAt + RESOLUTION_MS);
    if (refused.length === 0 || refused.length !== named.length) return;
    refusedShown.push({ create: refused[0]!, shown, item });
  };
  const refusedShown: Array<{ create: CreateOp; shown: Exchange; item: PetSeen }> = [];

  const readNode = (read: ReadKind, base: string, exchanges: Exchange[], complete: string | undefined, why: string) =>
    add(
      { kind: 'read', read, base, exchanges, complete, shows: new Set(), why, names: new Set() },
      { lo: exchanges[0]!.sentAt, hi: exchanges.at(-1)!.receivedAt + RESOLUTION_MS },
    );

  for (const g of gets) {
    const index = readNode('get', g.base, [g.exchange], g.found ? undefined : `id:${g.id}`, '');
    if (g.found) seeItem(index, g.found, g.exchange);
  }

  // Pages, and the walks they form by their next links.
  const byUrl = new Map<string, PageOp[]>();
  for (const p of pages) push(byUrl, p.url, p);
  const successor = (page: PageOp): PageOp | undefined => {
    if (page.next === undefined) return undefined;
    const candidates = (byUrl.get(page.next) ?? []).filter((c) => c.exchange.sentAt >= page.exchange.receivedAt);
    const auth = page.exchange.request.headers['authorization'];
    return candidates.find((c) => c.exchange.request.headers['authorization'] === auth) ?? candidates[0];
  };
  const repeats = (read: Exchange[], items: Array<{ item: PetSeen; page: Exchange }>, words: string) => {
    const first = new Map<number, Exchange>();
    for (const { item, page } of items) {
      const before = first.get(item.id);
      if (!before) {
        first.set(item.id, page);
        continue;
      }
      once({
        rule: 'walk-repeats',
        message: `${words} lists pet ${item.id} twice (${before === page ? `both in ${request(page)}` : `in ${request(before)} and again in ${request(page)}`})${read.length > 1 ? ', and no create ran while it was read' : ''}`,
        exchanges: inSendOrder(read),
      });
    }
  };
  for (const p of pages) {
    const index = readNode('page', p.base, [p.exchange], undefined, '');
    for (const item of p.items) seeItem(index, item, p.exchange);
    repeats(
      [p.exchange],
      p.items.map((item) => ({ item, page: p.exchange })),
      `the list page of ${request(p.exchange)}`,
    );
    if (!p.plain || p.filter === undefined) continue;
    if (p.next === undefined) {
      if (p.limit !== undefined && p.count < p.limit) {
        const node = nodes[index] as ReadNode;
        node.complete = p.filter;
        node.why = `the complete list page of ${request(p.exchange)} (${p.count === 1 ? '1 pet' : `${p.count} pets`}, fewer than its limit ${p.limit}, and no next link)`;
      }
      continue;
    }
    // A walk: pages chained by next links from this one to a page without one.
    const walk = [p];
    const visited = new Set([p.url]);
    for (let next = successor(p); next && !visited.has(next.url); next = successor(next)) {
      walk.push(next);
      visited.add(next.url);
    }
    const last = walk.at(-1)!;
    if (walk.length < 2 || last.next !== undefined) continue;
    if (walk.some((w) => w.filter !== p.filter)) continue;
    const exchanges = walk.map((w) => w.exchange);
    if (!quiet(p.exchange.sentAt, last.exchange.receivedAt + RESOLUTION_MS)) continue;
    const words = `the complete list walk of ${seqs(exchanges)} (${walk.length} pages from GET ${target(p.exchange)} to a page with no next link, no create running meanwhile)`;
    const walkIndex = readNode('walk', p.base, exchanges, p.filter, words);
    const items = walk.flatMap((w) => w.items.map((item) => ({ item, page: w.exchange })));
    for (const { item, page } of items) seeItem(walkIndex, item, page);
    repeats(exchanges, items, `the complete list walk of ${seqs(exchanges)}`);
  }

  for (const { create: c, shown, item } of refusedShown) {
    // A name anyone may use: only a pet that a complete read before it did not list is new.
    const absentBefore = nodes.findIndex(
      (n, i) =>
        n.kind === 'read' &&
        (n.complete === 'all' || (n.complete !== undefined && n.complete === item.status)) &&
        intervals[i]!.hi <= shown.sentAt &&
        !n.names.has(item.name),
    );
    if (!vouched && absentBefore < 0) continue;
    const origin = c.exchange.sentAt;
    const evidence = absentBefore < 0 ? [] : (nodes[absentBefore] as ReadNode).exchanges;
    const before = absentBefore < 0 ? '' : `, after ${(nodes[absentBefore] as ReadNode).why} showed none,`;
    once({
      rule: 'refused-invisible',
      message: `${request(c.exchange)} was ${answer(c.exchange)} at ${ms(c.exchange.receivedAt, origin)}, so it created nothing; yet ${request(shown)}, sent at ${ms(shown.sentAt, origin)}${before} shows a pet named ${JSON.stringify(item.name)} (id ${item.id}), and no other create carried that name`,
      exchanges: inSendOrder([c.exchange, shown, ...evidence]),
    });
  }

  // Absence: every create a complete read matches and does not show was created after it.
  const edges: Edge<Label>[] = [];
  const createNodes = nodes.flatMap((n, i) => (n.kind === 'create' ? [i] : []));
  for (let r = 0; r < nodes.length; r++) {
    const read = nodes[r]!;
    if (read.kind !== 'read') continue;
    for (const c of read.shows)
      if (intervals[c]!.hi > intervals[r]!.lo) edges.push({ from: c, to: r, strict: false, label: { kind: 'shows', read: r, create: c } });
    if (read.complete === undefined) continue;
    const getId = read.complete.startsWith('id:') ? Number(read.complete.slice(3)) : undefined;
    for (const c of createNodes) {
      const create = nodes[c] as CreateNode;
      if (read.shows.has(c) || create.op.base !== read.base) continue;
      if (getId !== undefined ? create.id !== getId : read.complete !== 'all' && create.status !== read.complete) continue;
      // Sent after the read was answered: it comes after it whatever the order.
      if (intervals[c]!.lo > intervals[r]!.hi) continue;
      if (intervals[r]!.lo >= intervals[c]!.hi) {
        once(missing(create, read));
        continue;
      }
      edges.push({ from: r, to: c, strict: true, label: { kind: 'lacks', read: r, create: c } });
    }
  }

  for (const contradiction of contradictions(intervals, edges)) {
    const chain = contradiction.chain;
    const involved = chain.flatMap((e) => [e.from, e.to]);
    const exchanges = inSendOrder(involved.flatMap((n) => exchangesOf(nodes[n]!)));
    const origin = exchanges[0]!.sentAt;
    const steps = chain.map((e) => step(nodes, e.label, origin));
    let end: string;
    if (contradiction.kind === 'cycle') end = 'so a pet was created after itself';
    else {
      const node = nodes[contradiction.node]!;
      const ex = node.kind === 'create' ? node.op.exchange : node.exchanges.at(-1)!;
      end = `yet ${request(ex)} was ${answer(ex)} at ${ms(ex.receivedAt, origin)}`;
    }
    once({
      rule: 'real-time-order',
      message: `no order of the operations consistent with real time explains these answers: ${steps.join('; ')}; ${end}`,
      exchanges,
    });
  }
  return findings;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function exchangesOf(node: Node): Exchange[] {
  return node.kind === 'create' ? [node.op.exchange] : node.exchanges;
}

function readWords(read: ReadNode): string {
  if (read.read === 'get') return request(read.exchanges[0]!);
  if (read.why !== '') return read.why;
  return `the list page of ${request(read.exchanges[0]!)}`;
}

function step(nodes: readonly Node[], label: Label, origin: number): string {
  const read = nodes[label.read] as ReadNode;
  const create = nodes[label.create] as CreateNode;
  const sent = ms(read.exchanges[0]!.sentAt, origin);
  if (label.kind === 'shows') return `${readWords(read)}, sent at ${sent}, shows ${pet(create.op, origin, create.id)}, so that pet existed when it was read`;
  const lacks = read.read === 'get' ? 'answered 404 for' : 'leaves out';
  return `${readWords(read)}, sent at ${sent}, ${lacks} ${pet(create.op, origin, create.id)}, so that pet was created after it was read`;
}

/** A read sent after a create was acknowledged, that does not show its pet. */
function missing(create: CreateNode, read: ReadNode): HistoryFinding {
  const c = create.op.exchange;
  const first = read.exchanges[0]!;
  const origin = Math.min(c.sentAt, first.sentAt);
  const status = c.response?.status ?? '';
  if (read.read === 'get')
    return {
      rule: 'acknowledged-readable',
      message: `${pet(create.op, origin)} was not found by ${request(first)}, ${answer(first)}, sent at ${ms(first.sentAt, origin)}, after the ${status}`,
      exchanges: inSendOrder([c, first]),
    };
  return {
    rule: 'acknowledged-listed',
    message: `${pet(create.op, origin)} was missing from ${read.why}, sent at ${ms(first.sentAt, origin)}, after the ${status}`,
    exchanges: inSendOrder([c, ...read.exchanges]),
  };
}

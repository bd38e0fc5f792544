// The store's history judged as it passes (the proxy): each exchange, once complete, is judged with
// the recent history of the resources it touches, and only what it newly shows is told. A resource is
// a pet id (its creates and gets), a name (its creates: a refused one's name must stay invisible), a
// list filter (its pages), or the store's creates (the last ones, which complete reads must list). Each keeps its last operations, and the
// oldest resources go past a bound: the memory is the same after a million exchanges as after a
// thousand, at the price of contradictions that span more than the window.
import type { Exchange } from '../exchange.ts';
import { storeOp, type StoreOp } from './operations.ts';
import { judgeOps, RESOLUTION_MS, type HistoryFinding, type StoreHistoryOptions } from './whole.ts';

export interface StoreHistoryLimits {
  /** Operations kept per resource (a pet id, a name, a list filter); the oldest go first. */
  maxOpsPerResource?: number;
  /** Resources kept in all; the least recently touched go first. */
  maxResources?: number;
}

export interface StoreHistory {
  /** Judges a completed exchange against the window; returns what it newly shows. */
  add(exchange: Exchange): HistoryFinding[];
  /**
   * A request is on its way (optional): until it completes, a create among them may land during any
   * walk, so no walk that overlaps it is read as one read.
   */
  sent?(exchange: Exchange): void;
  /** A request told of by `sent` never reached the store (refused on the way, answered by someone else). */
  unsent?(exchange: Exchange): void;
  /** Operations held, counted once per resource that holds them. */
  size(): number;
}

export const DEFAULT_OPS_PER_RESOURCE = 64;
export const DEFAULT_RESOURCES = 10_000;
/** The resource of the last creates that may have taken effect, whatever their status. */
const CREATES = 'creates';
/** Findings remembered so that a window judged again does not tell them twice. */
const REMEMBERED_FINDINGS = 4096;
/** Requests remembered as in flight; past it the oldest are taken as answered. */
const MAX_IN_FLIGHT = 4096;

/** The proxy's bounded form: judges each exchange as it completes against a window of recent history per resource. */
export function createStoreHistory(options: StoreHistoryOptions & StoreHistoryLimits = {}): Required<StoreHistory> {
  const tracked = options.tracked ?? (() => true);
  const vouched = options.tracked !== undefined;
  const perResource = Math.max(1, options.maxOpsPerResource ?? DEFAULT_OPS_PER_RESOURCE);
  const maxResources = Math.max(1, options.maxResources ?? DEFAULT_RESOURCES);
  /** Least recently touched first. */
  const resources = new Map<string, StoreOp[]>();
  let held = 0;
  const told = new Set<string>();
  /** Creates on their way, by seq. */
  const inFlight = new Map<number, StoreOp>();

  const hold = (key: string, op: StoreOp) => {
    const ops = resources.get(key) ?? [];
    resources.delete(key);
    resources.set(key, ops);
    ops.push(op);
    held++;
    if (ops.length > perResource) {
      ops.shift();
      held--;
    }
    while (resources.size > maxResources) {
      const [oldest, dropped] = resources.entries().next().value!;
      resources.delete(oldest);
      held -= dropped.length;
    }
  };
  const ofResource = (key: string) => {
    const ops = resources.get(key);
    return ops ? ops : [];
  };
  const forget = (id: number) => {
    const key = `pet:${id}`;
    held -= ofResource(key).length;
    resources.delete(key);
    for (const [k, ops] of resources) {
      if (k !== CREATES && !k.startsWith('name:')) continue;
      const kept = ops.filter((op) => !(op.kind === 'create' && op.pet?.id === id));
      held -= ops.length - kept.length;
      resources.set(k, kept);
    }
  };

  return {
    sent(exchange) {
      if (inFlight.size >= MAX_IN_FLIGHT) inFlight.delete(inFlight.keys().next().value!);
      // Whatever it turns out to be, while it runs it may be a create: held as one with no answer yet.
      const op = storeOp({ ...exchange, response: undefined, receivedAt: Infinity });
      if (op?.kind === 'create') inFlight.set(exchange.seq, op);
    },
    unsent(exchange) {
      inFlight.delete(exchange.seq);
    },
    add(given) {
      inFlight.delete(given.seq);
      const op = leanOp(given);
      if (!op) return [];
      const exchange = op.exchange;
      if (op.kind === 'write') {
        forget(op.id);
        return [];
      }
      const related = new Set<StoreOp>();
      const gather = (key: string, only?: (o: StoreOp) => boolean) => {
        for (const o of ofResource(key)) if (!only || only(o)) related.add(o);
      };
      const creates = (o: StoreOp) => o.kind === 'create';
      // A read that overlaps no create in time is bound by none but its own pair (told when it came):
      // only reads that overlap a create can be links of a longer contradiction.
      const overlapping = (key: string, among: readonly StoreOp[]) => {
        const spans = among.filter(creates).map(span);
        gather(key, (o) => o.kind === 'page' && spans.some((c) => c.lo < o.exchange.receivedAt + RESOLUTION_MS && c.hi > o.exchange.sentAt));
      };
      if (op.kind === 'create') {
        const keys = [...(op.pet ? [`pet:${op.pet.id}`] : []), ...(op.name !== undefined ? [`name:${op.name}`] : [])];
        for (const key of keys) gather(key);
        // The reads that ran with it, and the creates of the pets they show.
        const lists = ['list:all', ...(op.status !== undefined ? [`list:${op.status}`] : [])];
        for (const list of lists) overlapping(list, [op]);
        for (const read of [...related]) if (read.kind === 'page') for (const item of read.items) gather(`pet:${item.id}`, creates);
        for (const key of keys) hold(key, op);
        if (op.outcome !== 'refused') hold(CREATES, op);
      } else if (op.kind === 'get') {
        gather(`pet:${op.id}`);
        hold(`pet:${op.id}`, op);
      } else {
        const list = `list:${op.filter ?? '?'}`;
        for (const item of op.items) {
          gather(`pet:${item.id}`, creates);
          if (typeof item.name === 'string') gather(`name:${item.name}`, creates);
        }
        const held = ofResource(list);
        const walk = walkTo(op, held);
        // A page that may say what is absent (alone, or as the end of a walk), or shows a pet whose create
        // may still have been running, is placed among the other reads and creates; any other only
        // shows pets that existed before it, and is judged with their creates alone.
        const absence = op.next === undefined && (walk.length > 1 || (op.plain && op.limit !== undefined && op.count < op.limit));
        const sentAt = op.exchange.sentAt;
        const concurrent = [...related].some((c) => span(c).hi > sentAt) || inFlight.size > 0;
        if (absence || concurrent) {
          // Whatever may have changed the store meanwhile, whatever its status: a walk is one read only if nothing did.
          gather(CREATES);
          overlapping(list, [...related, ...inFlight.values()]);
          for (const page of walk) related.add(page);
        }
        // A pet with a refused create's name is new only if a complete read before it listed none of that name.
        if ([...related].some((o) => o.kind === 'create' && o.outcome === 'refused')) {
          let last: StoreOp | undefined;
          for (const o of ofResource('list:all'))
            if (o.kind === 'page' && o.next === undefined && o.exchange.receivedAt < sentAt && (!last || o.exchange.receivedAt > last.exchange.receivedAt))
              last = o;
          if (last?.kind === 'page') for (const page of walkTo(last, ofResource('list:all'))) related.add(page);
        }
        hold(list, op);
      }
      related.add(op);
      for (const pending of inFlight.values()) related.add(pending);
      const found: HistoryFinding[] = [];
      for (const finding of judgeOps([...related], tracked, vouched)) {
        if (!finding.exchanges.includes(exchange)) continue;
        const key = `${finding.rule}:${finding.exchanges.map((e) => e.seq).join(',')}`;
        if (told.has(key)) continue;
        told.add(key);
        if (told.size > REMEMBERED_FINDINGS) told.delete(told.values().next().value!);
        found.push(finding);
      }
      return found;
    },
    size: () => held,
  };
}

/** When an operation may have changed the store: from its send to its answer, or on for one whose outcome is unknown. */
function span(op: StoreOp): { lo: number; hi: number } {
  const unknown = op.kind === 'create' && op.outcome === 'unknown';
  return { lo: op.exchange.sentAt, hi: unknown ? Infinity : op.exchange.receivedAt + RESOLUTION_MS };
}

/** The operation an exchange is, holding a copy of it without bodies: what the operation needs of them is read. */
function leanOp(exchange: Exchange): StoreOp | undefined {
  const op = storeOp(exchange);
  if (!op) return undefined;
  const { request, response } = exchange;
  const authorization = request.headers['authorization'];
  const lean: Exchange = {
    seq: exchange.seq,
    operationId: exchange.operationId,
    purpose: exchange.purpose,
    request: { method: request.method, url: request.url, headers: authorization !== undefined ? { authorization } : {} },
    ...(response ? { response: { status: response.status, headers: {}, body: '' } } : {}),
    ...(exchange.error !== undefined ? { error: exchange.error } : {}),
    sentAt: exchange.sentAt,
    receivedAt: exchange.receivedAt,
  };
  return { ...op, exchange: lean };
}

/** The pages before `page` in its walk, by their next links (each the last answered before the next was sent), and `page`. */
function walkTo(page: StoreOp & { kind: 'page' }, held: readonly StoreOp[]): StoreOp[] {
  const walk: StoreOp[] = [page];
  let current = page;
  for (;;) {
    let before: (StoreOp & { kind: 'page' }) | undefined;
    for (const o of held) {
      if (o.kind !== 'page' || o.next !== current.url || o.exchange.receivedAt > current.exchange.sentAt || walk.includes(o)) continue;
      if (!before || o.exchange.receivedAt > before.exchange.receivedAt) before = o;
    }
    if (!before) return walk;
    walk.push(before);
    current = before;
  }
}

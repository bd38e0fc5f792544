// One cause, many failures. A header the target never sends fails every check that validates an
// answer (list.200, get.404, auth.401-missing, headers.rate-limit, ...): one bug, a dozen FAIL rows.
// A failure names what is wrong by key, apart from the request it was seen on; the checks that share
// a key are grouped under one of them. Verdicts never change: only how the failures are told and counted.
import type { CheckResult, Failure } from './ledger.ts';

/**
 * What is wrong, apart from the answer it was seen on. Two failures have the same cause when they
 * share a key: the same header missing, the same header's value breaking the same schema rule, or
 * the body breaking the same schema rule at the same place (array indices aside: `/0/status` and
 * `/7/status` of a list are one place). A status, a behaviour or a rate-limit rule has no key: it
 * stays a cause of its own.
 */
export const causeKey = {
  headerMissing: (name: string): string => `header ${name.toLowerCase()} is missing`,
  headerInvalid: (name: string, message: string): string => `header ${name.toLowerCase()} ${message}`,
  body: (instancePath: string, message: string): string => `body${instancePath.replace(/\/\d+(?=\/|$)/g, '/*')} ${message}`,
  /** The whole content, or its media type: `where` is "body" or "header content-type". */
  content: (where: string, message: string): string => `${where} ${message}`,
};

/** A cause that failed more than one check: reported under `check`, and named on the others. */
export interface SharedCause {
  key: string;
  /** The check it is reported under (with its request and response). */
  check: string;
  /** The other checks it broke, in the catalogue's order. */
  alsoBroke: string[];
  /** Failures it accounts for, over every check (each repetition counted). */
  failures: number;
}

export interface Grouped {
  results: CheckResult[];
  causes: SharedCause[];
  /** Distinct causes among the failed checks: each key once, each failure without a key on its own. */
  distinct: number;
}

const isProblem = (r: CheckResult) => r.outcome === 'failed' || r.outcome === 'warned';
/** The ledger's stand-in for the failures it did not keep: not a cause anyone can name. */
const isPlaceholder = (f: Failure) => f.evidence.length === 0 && f.message.startsWith('(further');
const weight = (f: Failure) => 1 + (f.sameCause?.length ?? 0);

/**
 * Groups failures of one cause across checks. A cause is reported under the check that saw it most
 * often (a failed check before a warned one, then the catalogue's order: the widest witness, such as
 * `schema.every-response`, which judges every answer); each of its failures there lists the other
 * checks it broke (`alsoBroke`), each failure elsewhere the check it is reported under (`follows`),
 * and a check all of whose failures are told elsewhere says so (`followsFrom`).
 */
export function groupCauses(given: readonly CheckResult[]): Grouped {
  const results = given.map((r) => (isProblem(r) ? { ...r, failures: r.failures.map((f) => ({ ...f })) } : r));
  const seen = new Map<string, Map<number, number>>();
  results.forEach((r, index) => {
    if (!isProblem(r)) return;
    for (const f of r.failures) {
      for (const key of f.causes ?? []) {
        const byCheck = seen.get(key) ?? seen.set(key, new Map()).get(key)!;
        byCheck.set(index, (byCheck.get(index) ?? 0) + weight(f));
      }
    }
  });
  const owner = new Map<string, number>();
  const causes: SharedCause[] = [];
  for (const [key, byCheck] of seen) {
    if (byCheck.size < 2) continue;
    const rank = (i: number) => [results[i]!.outcome === 'failed' ? 0 : 1, -byCheck.get(i)!, i];
    const [first] = [...byCheck.keys()].sort((a, b) => {
      const [x, y] = [rank(a), rank(b)];
      return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
    });
    owner.set(key, first!);
    const others = [...byCheck.keys()].filter((i) => i !== first).sort((a, b) => a - b);
    causes.push({
      key,
      check: results[first!]!.id,
      alsoBroke: others.map((i) => results[i]!.id),
      failures: [...byCheck.values()].reduce((a, b) => a + b, 0),
    });
  }
  results.forEach((r, index) => {
    if (!isProblem(r)) return;
    for (const f of r.failures) {
      const keys = f.causes ?? [];
      const owned = keys.filter((k) => owner.get(k) === index);
      if (owned.length > 0) {
        f.alsoBroke = [...new Set(owned.flatMap((k) => causes.find((c) => c.key === k)!.alsoBroke))];
      } else if (keys.length > 0 && keys.every((k) => owner.has(k))) {
        f.follows = [...new Set(keys.map((k) => results[owner.get(k)!]!.id))];
      }
    }
    const told = r.failures.filter((f) => !isPlaceholder(f));
    if (told.length > 0 && told.length === r.failures.length && told.every((f) => f.follows)) {
      r.followsFrom = [...new Set(told.flatMap((f) => f.follows!))];
    }
  });
  const keys = new Set<string>();
  let keyless = 0;
  for (const r of results) {
    if (r.outcome !== 'failed') continue;
    for (const f of r.failures) {
      if (isPlaceholder(f)) continue;
      if (f.causes?.length) for (const k of f.causes) keys.add(k);
      else keyless++;
    }
  }
  return { results, causes, distinct: keys.size + keyless };
}

// Before any check, a diagnosis (conformance/README.md, Preflight and pacing): anything that would
// turn every check into a failure, or leave what was asked unjudged, ends the run here with exit 2
// and one message saying what to change. Its requests are kept and reused by the checks.
import { KitError } from '../lib/errors.ts';
import { isAdmittedStatus, isRefusalStatus } from '../spec/rules/snapshot.js';
import { CATALOGUE } from './catalogue.ts';
import { TlsError, UnreachableError, type SendOptions } from './http.ts';
import { type Exchange } from '../judge/exchange.ts';
import { redactHeader } from '../spec/rules/redact.js';
import type { RunContext } from './checks/area.ts';
import { retryWaitOf } from '../judge/rate-limit-verdict.ts';
import { validateResponse } from '../judge/contract.ts';
import { answered, errorOf } from '../judge/refusal.ts';
import { tooLargeText } from '../judge/exchange.ts';

/** The target cannot be checked as given: the base URL or the key is wrong. */
export class PreflightError extends KitError {
  constructor(message: string) {
    super('preflight', message);
  }
}

export interface PreflightResult {
  /** GET /pets with the key. */
  list: Exchange;
  /** GET /pets without Authorization. */
  keyless: Exchange;
  /** GET /pets?limit=1 with --rate-limit-key, sent before any other request with it, when the run uses it. */
  rateLimitKey?: Exchange;
}

const LIST: Omit<SendOptions, 'purpose'> = { operationId: 'listPets', method: 'GET', path: '/pets' };

async function firstAnswer(run: RunContext): Promise<Exchange> {
  const deadline = run.clock.now() + run.options.waitForTargetSeconds * 1000;
  for (;;) {
    const list = await run.http.send({ ...LIST, purpose: 'list without parameters' });
    run.progress({ type: 'request', exchange: list });
    if (list.tlsError) {
      throw new TlsError(
        `${list.error} at ${list.request.url}. Pass --ca <file> with the certificate of the CA that signed it, or --insecure to skip verification (never against production)`,
      );
    }
    if (!list.error) return list;
    const left = deadline - run.clock.now();
    if (left <= 0) {
      const waited = run.options.waitForTargetSeconds > 0 ? ` (waited ${run.options.waitForTargetSeconds} s, --wait-for-target)` : '';
      throw new UnreachableError(`cannot reach ${list.request.url}: ${list.error}${waited}`);
    }
    await run.wait(Math.min(1000, left), `the target does not answer yet (${list.error}); --wait-for-target ${run.options.waitForTargetSeconds}`);
  }
}

/** The first path segments of the description's operations: `pets`. */
function collections(run: RunContext): string[] {
  const names = [...run.contract.operations.values()].map((op) => op.path.split('/')[1] ?? '');
  return [...new Set(names.filter((name) => name !== '' && !name.startsWith('{')))];
}

/**
 * Where /pets might be instead: the base URL cut before a collection name it holds (`…/v1/pets`,
 * `…/v1/pets/3`), with the description's base path, or the origin with it.
 */
function candidates(baseUrl: string, basePath: string, names: readonly string[]): string[] {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const found: string[] = [];
  const segments = path.split('/');
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  let at = segments.length - 1;
  while (at > 0 && !wanted.has(segments[at]!.toLowerCase())) at--;
  if (at > 0) found.push(`${url.origin}${segments.slice(0, at).join('/')}`);
  if (!path.endsWith(basePath)) found.push(`${url.origin}${path}${basePath}`);
  if (path !== '' && path !== basePath) found.push(`${url.origin}${basePath}`);
  return [...new Set(found)];
}

/** The first candidate base URL below which /pets answers (200, or a refusal of the key there), with that answer. */
async function answeringBase(run: RunContext, given: string): Promise<{ base: string; probe: Exchange } | undefined> {
  for (const base of candidates(given, run.contract.facts.basePath, collections(run))) {
    const probe = await run.http.send({ ...LIST, purpose: `is /pets below ${base}?`, path: `${base}/pets` });
    run.progress({ type: 'request', exchange: probe });
    const status = probe.response?.status;
    if (status === 200 || status === 401 || status === 429) return { base, probe };
  }
  return undefined;
}

/** Whether GET of the base URL itself answers what listPets answers: a list of pets valid at must level. */
async function answersAsCollection(run: RunContext, given: string): Promise<boolean> {
  const self = await run.http.send({ ...LIST, purpose: 'is the base URL the collection itself?', path: given });
  run.progress({ type: 'request', exchange: self });
  return self.response?.status === 200 && validateResponse(run.contract, 'listPets', self.response, 'must').length === 0;
}

const PREFIX = 'the prefix /pets is appended to, version segment included';

/**
 * GET {base}/pets did not answer a list. A status other than 404 ends the run only when another
 * base URL answers the list: otherwise the target is judged as given, so that no choice left open
 * (what /pets/pets or the base URL answer) is diagnosed as a wrong base URL.
 */
async function wrongBase(run: RunContext, list: Exchange): Promise<void> {
  const given = run.options.baseUrl.replace(/\/+$/, '');
  const status = list.response!.status;
  const found = await answeringBase(run, given);
  if (found) {
    throw new PreflightError(
      `GET ${list.request.url} answered ${status} (${errorOf(list)}), but ${found.probe.request.url} answers ${found.probe.response!.status}: use --base-url ${found.base} (${PREFIX})`,
    );
  }
  if (await answersAsCollection(run, given)) {
    throw new PreflightError(
      `GET ${list.request.url} answered ${status} (${errorOf(list)}), but GET ${given} answers a list of pets: --base-url names the collection itself, not ${PREFIX}`,
    );
  }
  if (status === 404)
    throw new PreflightError(
      `GET ${list.request.url} answered 404 (${errorOf(list)}): --base-url must be ${PREFIX} (e.g. https://host${run.contract.facts.basePath})`,
    );
}

/** Whether the run will send with --rate-limit-key: a check that needs it is selected. */
function usesRateLimitKey(run: RunContext): boolean {
  return run.options.rateLimitKey !== undefined && CATALOGUE.some((c) => c.needs?.includes('rate-limit-key') && run.options.selected(c.id));
}

/**
 * One request with --rate-limit-key before any other: a key the target refuses for longer than the
 * run may wait (a ban, a spent day), or does not take at all, leaves every rate-limit check unjudged,
 * so the run ends here, in the target's words. A shorter refusal is waited out by the rate-limit phase.
 */
async function rateLimitKeyAnswer(run: RunContext): Promise<Exchange | undefined> {
  if (!usesRateLimitKey(run)) return undefined;
  const authorization = run.http.bearer(run.options.rateLimitKey);
  const ex = await run.http.send({ ...LIST, purpose: 'list with --rate-limit-key: is it admitted?', query: { limit: 1 }, authorization });
  run.progress({ type: 'request', exchange: ex });
  const res = ex.response;
  if (!res || isAdmittedStatus(res.status)) return ex;
  const waitMs = retryWaitOf(ex, run.options);
  const maxWait = run.options.maxWaitSeconds;
  // A 401, or a 403 that names no moment to come back: the key is not taken at all.
  if (res.status === 401 || (res.status === 403 && waitMs === null)) {
    throw new PreflightError(
      `the target refused --rate-limit-key: ${answered(ex)} to ${redactHeader('authorization', authorization)}. Check --rate-limit-key (or CONFORMANCE_RATE_LIMIT_KEY); no check was run`,
    );
  }
  if (isRefusalStatus(res.status) && waitMs !== null && waitMs > maxWait * 1000) {
    throw new PreflightError(
      `the target refuses --rate-limit-key: ${answered(ex)}; it is admitted again in ${Math.ceil(waitMs / 1000)} s, longer than --max-wait ${maxWait}. No check was run: run again after that, give --rate-limit-key a key that is not refused, or raise --max-wait`,
    );
  }
  // Admitted again within --max-wait, or another answer: the rate-limit phase waits for it, or judges it.
  return ex;
}

export async function preflight(run: RunContext): Promise<PreflightResult> {
  run.progress({ type: 'phase', name: 'preflight: target, base URL, key, allowances' });
  const list = await firstAnswer(run);
  const status = list.response!.status;
  const tooLarge = list.response!.tooLarge;
  if (tooLarge) {
    run.progress({
      type: 'note',
      text: `GET ${list.request.url} answered ${status} with a ${tooLargeText(tooLarge)}. The checks that need such a body report it as not judged (exit 2 unless a check fails); if the target's answers really are this large, raise --max-body`,
    });
  }
  if (status === 401 || status === 403) {
    const key = redactHeader('authorization', list.request.headers.authorization ?? '');
    throw new PreflightError(
      `the target refused --api-key: GET ${list.request.url} answered ${status} (${errorOf(list)}) to ${key}. Check --api-key (or CONFORMANCE_API_KEY); no check was run`,
    );
  }
  if (status === 429) {
    // The pacer waited once already; the target still limits the key or the address.
    throw new PreflightError(
      `the target is limiting this run before it started: GET ${list.request.url} answered 429 (${errorOf(list)}, Retry-After ${list.response!.headers['retry-after'] ?? 'missing'})`,
    );
  }
  if (!isAdmittedStatus(status)) await wrongBase(run, list);
  // The address's allowance for requests without a key: learnt here, before any check spends it.
  const keyless = await run.http.send({ ...LIST, purpose: 'list without Authorization', authorization: null });
  run.progress({ type: 'request', exchange: keyless });
  const rateLimitKey = await rateLimitKeyAnswer(run);
  return { list, keyless, ...(rateLimitKey ? { rateLimitKey } : {}) };
}

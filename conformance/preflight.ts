// Before any check, a diagnosis: one request with the key and one without tell whether the target
// answers at all (waiting for it with --wait-for-target), over TLS that works, at a base URL that
// has /pets below it, with a key it admits, and how much of the address's allowance for requests
// without a key is left. Anything that would turn every check into a failure ends the run here with
// exit 2 and one message saying what to change; both requests are kept and reused by the checks.
import { KitError } from '../lib/errors.ts';
import { redactAuthorization, TlsError, UnreachableError, type Exchange, type SendOptions } from './http.ts';
import type { RunContext } from './checks/area.ts';
import { tooLargeText } from './transport.ts';

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
}

const LIST: Omit<SendOptions, 'purpose'> = { operationId: 'listPets', method: 'GET', path: '/pets' };

function errorOf(ex: Exchange): string {
  try {
    const body = JSON.parse(ex.response?.body ?? '') as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') return `${body.code}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
  } catch {
    // not an Error body
  }
  const type = ex.response?.headers['content-type'];
  return type ? `a ${type.split(';')[0]} body` : 'no body';
}

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

/** Where /pets might be instead: the base URL with the description's base path, or without a trailing /pets. */
function candidates(baseUrl: string, basePath: string): string[] {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const found: string[] = [];
  if (path.endsWith('/pets')) found.push(`${url.origin}${path.slice(0, -'/pets'.length)}`);
  if (!path.endsWith(basePath)) found.push(`${url.origin}${path}${basePath}`);
  if (path !== '' && path !== basePath) found.push(`${url.origin}${basePath}`);
  return [...new Set(found)];
}

async function notFound(run: RunContext, list: Exchange): Promise<never> {
  const given = run.options.baseUrl.replace(/\/+$/, '');
  for (const base of candidates(given, run.contract.facts.basePath)) {
    const probe = await run.http.send({ ...LIST, purpose: `is /pets below ${base}?`, path: `${base}/pets` });
    run.progress({ type: 'request', exchange: probe });
    const status = probe.response?.status;
    if (status === 200 || status === 401 || status === 429) {
      throw new PreflightError(
        `GET ${list.request.url} answered 404 (${errorOf(list)}), but ${probe.request.url} answers ${status}: use --base-url ${base} (the prefix /pets is appended to, version segment included)`,
      );
    }
  }
  throw new PreflightError(
    `GET ${list.request.url} answered 404 (${errorOf(list)}): --base-url must be the prefix /pets is appended to, version segment included (e.g. https://host${run.contract.facts.basePath})`,
  );
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
  if (status === 404) await notFound(run, list);
  if (status === 401 || status === 403) {
    const key = redactAuthorization(list.request.headers.authorization ?? '');
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
  // The address's allowance for requests without a key: learnt here, before any check spends it.
  const keyless = await run.http.send({ ...LIST, purpose: 'list without Authorization', authorization: null });
  run.progress({ type: 'request', exchange: keyless });
  return { list, keyless };
}

// How the target closes kept-alive connections. A server may close one at any time (RFC 9112 §9.5),
// but one that closes after an answer SHOULD say so on it with Connection: close (§9.6): otherwise the
// client sends its next request on a connection already gone. The kit's transport sends an idempotent
// request that met such a close once more (transport.ts); this check names the close, at should level.
import type { Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area, AreaContext } from './area.ts';

export const CLOSE_ANNOUNCED = 'http.close-announced';

const checks: readonly CheckDef[] = [
  {
    id: CLOSE_ANNOUNCED,
    level: 'should',
    profile: 'contract',
    section: 'RFC 9112 §9.6',
    title:
      'A kept-alive connection is closed only after an answer that says so with Connection: close, so that no request goes out on a connection the target already closed',
    reads: 'status-and-headers',
  },
];

type Closed = NonNullable<NonNullable<Exchange['connection']>['closedBeforeAnswer']>;

/** "GET /v1/pets?limit=1 (request 12)" */
function named(request: { method: string; url: string; seq?: number }): string {
  const url = new URL(request.url);
  return `${request.method} ${url.pathname}${url.search}${request.seq === undefined ? '' : ` (request ${request.seq})`}`;
}

/** What a close unannounced says about the request it came under, and the one answered before it. */
export function closeText(ex: Exchange, closed: Closed): string {
  const fate = closed.resent ? 'was sent again on a new connection' : `was not sent again (${ex.request.method} is not idempotent, RFC 9110 §9.2.2)`;
  const after = closed.after ? `after its answer to ${named(closed.after)}` : 'before any answer';
  return `${named({ ...ex.request, seq: ex.seq })} ${fate}: the target closed the kept-alive connection ${after} without Connection: close on that answer (${closed.error})`;
}

const announced = (ex: Exchange | undefined) => /(^|,)\s*close\s*(,|$)/i.test(ex?.response?.headers.connection ?? '');

function inspect(ex: Exchange, ctx: AreaContext): void {
  const connection = ex.connection;
  if (!connection?.reused) return;
  const closed = connection.closedBeforeAnswer;
  if (!closed) {
    if (ex.response) ctx.ledger.pass(CLOSE_ANNOUNCED);
    return;
  }
  const seq = closed.after?.seq;
  const before = seq === undefined ? undefined : ctx.http.exchanges.find((e) => e.seq === seq);
  // A close the answer before announced is the one RFC 9112 §9.6 asks for (Node reuses no such connection).
  if (announced(before)) return;
  // One cause per kind of answer the target closes after: a server that closes after every HEAD is told once.
  const cause = `closes kept-alive connections unannounced after answering ${closed.after?.method ?? 'a request'}`;
  ctx.ledger.fail(CLOSE_ANNOUNCED, closeText(ex, closed), before ? [before, ex] : [ex], undefined, [cause]);
}

function finish(ctx: AreaContext): void {
  ctx.ledger.notRun(CLOSE_ANNOUNCED, 'no connection was reused: every request went on a new connection, so no close could come between two of them');
}

export const connectionsArea: Area = { name: 'connections', checks, inspect, finish };

// What the proxy answers in the server's place with --faults (Prefer: code=429|500|503): the
// contract's injected answers (x-fault-injection), the ones the reference server gives. Other codes
// and named examples go on to the target.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../judge/index.ts';
import { isInjectable, requestedFault, type InjectableCode } from '../lib/prefer.ts';
import type { Cut, Cutter } from './cutter.ts';
import { ChunkCapture, type RawExchange } from './raw-exchange.ts';
import { INJECTED_ANSWERS, LOWER_HEADERS } from '../spec/rules/contract.js';

/** The longest Prefer: delay the proxy holds a request for. */
export const MAX_DELAY_MS = 60_000;

/** The window an injected 429 names: the key's last X-RateLimit-Reset and -Limit, when it had any. */
export interface LastWindow {
  reset?: number;
  limit?: number;
}

/** The Error body and headers of a fault the proxy answers in the server's place. */
export function injectedAnswer(code: InjectableCode, last: LastWindow, nowMs: number): { headers: Record<string, string>; body: string } {
  const answer = INJECTED_ANSWERS[code];
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    [LOWER_HEADERS.faultInjected]: `code=${code}`,
  };
  if (code === 429) {
    // The 429 the key would get: its window's end as the last answer named it, else the contract's
    // wait for an unknown window.
    const now = Math.floor(nowMs / 1000);
    const reset = last.reset !== undefined && last.reset > now ? last.reset : now + Number(INJECTED_ANSWERS[429].retryAfter);
    headers[LOWER_HEADERS.retryAfter] = String(Math.max(1, reset - now));
    headers[LOWER_HEADERS.rateLimitLimit] = String(last.limit ?? 0);
    headers[LOWER_HEADERS.rateLimitRemaining] = '0';
    headers[LOWER_HEADERS.rateLimitReset] = String(reset);
  } else if ('retryAfter' in answer) headers[LOWER_HEADERS.retryAfter] = answer.retryAfter;
  return { headers, body: JSON.stringify({ status: code, code: answer.code, message: answer.message }) };
}

export interface FaultRequest {
  req: IncomingMessage;
  res: ServerResponse;
  incoming: Record<string, string>;
  /** The exchange as the proxy keeps it, which is also what cuts it short. */
  exchange: RawExchange;
  /** Resolves when the request body has been read (and captured). */
  bodyEnded: Promise<void>;
  /** The key's last window, read once the fault is answered. */
  lastWindow: () => LastWindow;
  clock: Clock;
  sleep: (ms: number, cutter: Cutter) => Promise<void>;
}

/**
 * The fault a request asks for with Prefer, answered in the server's place: 'injected' when the
 * proxy answered, the Cut when a delay was cut short, undefined when the request goes on to the target.
 */
export async function answerRequestedFault(r: FaultRequest): Promise<'injected' | Cut | undefined> {
  const fault = requestedFault(r.incoming, MAX_DELAY_MS);
  // A Prefer that is not a fault this proxy injects goes on unchanged: the server says what it thinks of it.
  if (typeof fault === 'string') return undefined;
  if (fault.delayMs) await r.sleep(fault.delayMs, r.exchange);
  if (r.exchange.reason) return r.exchange.reason;
  // Another status or a named example (Prism's convention) is the target's to answer, if it can.
  if (!isInjectable(fault.code)) return undefined;
  r.req.resume();
  await r.bodyEnded;
  const answer = injectedAnswer(fault.code, r.lastWindow(), r.clock.now());
  r.res.writeHead(fault.code, answer.headers);
  r.res.end(answer.body);
  r.exchange.receivedAt = r.clock.now();
  r.exchange.status = fault.code;
  r.exchange.responseRaw = Object.entries(answer.headers).flat();
  const body = new ChunkCapture(Infinity);
  body.add(Buffer.from(answer.body));
  r.exchange.responseBody = body;
  return 'injected';
}

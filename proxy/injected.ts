// What the proxy answers in the server's place with --faults (Prefer: code=429|500|503).

/** The longest Prefer: delay the proxy holds a request for. */
export const MAX_DELAY_MS = 60_000;

/** The window an injected 429 names: the key's last X-RateLimit-Reset and -Limit, when it had any. */
export interface LastWindow {
  reset?: number;
  limit?: number;
}

/** The Error body and headers of a fault the proxy answers in the server's place. */
export function injectedAnswer(code: 429 | 500 | 503, last: LastWindow, nowMs: number): { headers: Record<string, string>; body: string } {
  const messages = {
    429: ['rate_limited', 'Too many requests (injected by the proxy).'],
    500: ['internal_error', 'Internal error (injected by the proxy).'],
    503: ['service_unavailable', 'Service unavailable (injected by the proxy).'],
  } as const;
  const [errorCode, message] = messages[code];
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-fault-injected': `code=${code}`,
  };
  if (code === 429) {
    // The 429 the key would get: its window's end as the last answer named it, else a minute.
    const now = Math.floor(nowMs / 1000);
    const reset = last.reset !== undefined && last.reset > now ? last.reset : now + 60;
    headers['retry-after'] = String(Math.max(1, reset - now));
    headers['x-ratelimit-limit'] = String(last.limit ?? 0);
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = String(reset);
  } else if (code === 503) headers['retry-after'] = '1';
  return { headers, body: JSON.stringify({ status: code, code: errorCode, message }) };
}

// One blocking HTTP request with curl: what a k6 VU does, without k6, for the shim's handlers that
// talk to real servers. curl follows nothing (no -L): redirects are the shim's to follow, as k6's are.
import { execFileSync } from 'node:child_process';
import type { FakeRequest, FakeResponse } from './k6-shim.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

export function curl(req: FakeRequest): FakeResponse {
  const args = ['-s', '-i', '--max-time', '10', '-X', req.method];
  for (const [k, v] of Object.entries(req.headers)) args.push('-H', `${k}: ${v}`);
  if (req.body !== null) args.push('--data-binary', req.body);
  args.push(req.url);
  const started = performance.now();
  let raw: string;
  try {
    raw = execFileSync('curl', args, { encoding: 'utf8', timeout: START_BOUND_MS });
  } catch {
    return { status: 0 };
  }
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: raw.slice(split + 4), latencyMs: performance.now() - started };
}

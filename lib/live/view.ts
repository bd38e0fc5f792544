// The live view as a plain Node handler: the page at `basePath` and its feed at `basePath/events`,
// for a server that routes by hand (the judging proxy). A hapi server routes the same two pieces
// itself (server/plugins/live-view.ts), behind its own auth. Here the feed needs `token` as a bearer
// credential when one is given, and only loopback peers are answered unless `remote` allows any.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LiveFeed, type LiveFeedOptions } from './feed.ts';
import { LIVE_PAGE_CSP, livePage } from './page.ts';

export interface LiveViewOptions extends LiveFeedOptions {
  /** Where the page is served, e.g. /__adoption-kit/live; no trailing slash. */
  basePath: string;
  title: string;
  /** The feed is read only with "Authorization: Bearer <token>"; the page (a shell) asks for it. */
  token?: string;
  /** What the page calls the token ("view token"). */
  tokenName?: string;
  /** Answer peers that are not on this machine too; by default they get a 403. */
  remote?: boolean;
}

export interface LiveView {
  /** Answers `req` when its path is the view's (true), else leaves it alone (false). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Ends every stream; later requests for the feed get a 503. Call it before closing the server. */
  close(): void;
  readonly feed: LiveFeed;
}

/** A peer on this machine: 127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/** The request's bearer credential is `token`, compared in constant time. */
function bearerIs(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(`${text}\n`);
}

export function createLiveView(options: LiveViewOptions): LiveView {
  const { basePath, title, token, tokenName = 'token', remote = false, ...feedOptions } = options;
  const eventsPath = `${basePath}/events`;
  const feed = new LiveFeed(feedOptions);
  const page = livePage({ title, eventsUrl: eventsPath, token: token !== undefined, tokenName });

  return {
    feed,
    handle(req, res) {
      const path = new URL(req.url ?? '/', 'http://live.invalid').pathname;
      if (path !== basePath && path !== `${basePath}/` && path !== eventsPath) return false;
      // The request's body (none is expected) is read and dropped, so the connection stays usable.
      req.resume();
      const allowed = path === eventsPath ? ['GET'] : ['GET', 'HEAD'];
      if (!remote && !isLoopback(req.socket.remoteAddress)) plain(res, 403, 'The live view answers only this machine.');
      else if (!allowed.includes(req.method ?? '')) plain(res, 405, `${req.method} is not allowed here.`, { allow: allowed.join(', ') });
      else if (path === eventsPath) {
        if (token !== undefined && !bearerIs(req, token))
          plain(res, 401, `The live view's feed needs its ${tokenName}: Authorization: Bearer <${tokenName}>.`, { 'www-authenticate': 'Bearer' });
        else feed.connect(req, res);
      } else {
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': LIVE_PAGE_CSP,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        });
        res.end(req.method === 'HEAD' ? undefined : page);
      }
      return true;
    },
    close: () => feed.close(),
  };
}

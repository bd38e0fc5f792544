// The live view as a plain Node handler: the page at `basePath` and its feed at `basePath/events`,
// for a server that routes by hand (the judging proxy). A hapi server routes the same two pieces
// itself (server/plugins/live-view.ts), behind its own auth.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LiveFeed, type LiveFeedOptions } from './feed.ts';
import { LIVE_PAGE_CSP, livePage } from './page.ts';

export interface LiveViewOptions extends LiveFeedOptions {
  /** Where the page is served, e.g. /__adoption-kit/live; no trailing slash. */
  basePath: string;
  title: string;
}

export interface LiveView {
  /** Answers `req` when its path is the view's (true), else leaves it alone (false). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Ends every stream; later requests for the feed get a 503. Call it before closing the server. */
  close(): void;
  readonly feed: LiveFeed;
}

export function createLiveView(options: LiveViewOptions): LiveView {
  const { basePath, title, ...feedOptions } = options;
  const eventsPath = `${basePath}/events`;
  const feed = new LiveFeed(feedOptions);
  const page = livePage({ title, eventsUrl: eventsPath, token: false });

  return {
    feed,
    handle(req, res) {
      const path = new URL(req.url ?? '/', 'http://live.invalid').pathname;
      if (path !== basePath && path !== `${basePath}/` && path !== eventsPath) return false;
      // The request's body (none is expected) is read and dropped, so the connection stays usable.
      req.resume();
      const allowed = path === eventsPath ? ['GET'] : ['GET', 'HEAD'];
      if (!allowed.includes(req.method ?? '')) {
        res.writeHead(405, { allow: allowed.join(', '), 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${req.method} is not allowed here.\n`);
      } else if (path === eventsPath) feed.connect(req, res);
      else {
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

// The live view's page: one self-contained HTML document, CSS and script inline (nothing fetched but its
// feed), under a CSP that allows only those, by hash. The feed's SVG goes in as timelineSvg drew it (it
// escapes traffic's strings), any other string by textContent. A feed that needs the admin token is read
// by fetch(), the token from the URL's #token= (never sent) or the form, kept only in the page's memory.
// The feed shows a page of keys; the page says how many more there are and sends a search as `?q=`.
import { createHash } from 'node:crypto';

export interface LivePageOptions {
  title: string;
  /** The feed's URL, relative to the page or absolute-path. */
  eventsUrl: string;
  /** The feed needs "Authorization: Bearer <token>". */
  token: boolean;
  /** What the page calls that token: "admin token" (the server's), "view token" (the proxy's). */
  tokenName?: string;
}

const CSS = `
:root { color-scheme: light; }
[hidden] { display: none !important; }
body { margin: 1.5rem auto; max-width: 76rem; padding: 0 1rem; color: #1f2328; font-family: system-ui, sans-serif; }
header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; }
h1 { font-size: 1.35rem; margin: 0; } h2 { font-size: 1.1rem; margin: 0; display: flex; gap: .6rem; align-items: center; flex-wrap: wrap; }
h3 { font-size: .95rem; margin: .8rem 0 .3rem; }
#status { font-size: .9rem; padding: .1rem .5rem; border-radius: .3rem; background: #6e7781; color: #fff; }
#status[data-state="live"] { background: #1a7f37; } #status[data-state="refused"] { background: #cf222e; }
form { margin: 1rem 0; display: flex; gap: .5rem; align-items: center; }
#more { font-size: .9rem; color: #57606a; margin: .3rem 0; }
section.key { border: 1px solid #d0d7de; border-radius: .5rem; padding: .8rem 1rem; margin: 1rem 0; }
.badge { font-size: .8rem; font-weight: bold; padding: .1rem .5rem; border-radius: .3rem; color: #fff; white-space: nowrap; }
.banned { background: #8250df; } .ready { background: #1a7f37; } .not-ready { background: #cf222e; } .warnings { background: #9a6700; }
dl.stats { display: grid; grid-template-columns: repeat(4, auto); gap: .2rem 1rem; margin: .6rem 0; justify-content: start; }
dl.stats dt { font-size: .8rem; color: #57606a; grid-row: 1; } dl.stats dd { margin: 0; font-size: 1.1rem; font-variant-numeric: tabular-nums; grid-row: 2; }
.timeline svg { max-width: 100%; height: auto; display: block; }
ul.findings { margin: 0; padding-left: 1.2rem; font-size: .9rem; } ul.findings li.none { list-style: none; margin-left: -1.2rem; color: #57606a; }
.level { font-weight: bold; } .level.must { color: #cf222e; } .level.should { color: #9a6700; }
`;

// Plain ES2017 for any recent browser, kept as text: what is served is exactly what is hashed.
const SCRIPT = `
(function () {
  'use strict';
  var body = document.body;
  var eventsUrl = body.getAttribute('data-events');
  var needsToken = body.getAttribute('data-auth') === 'token';
  var tokenName = body.getAttribute('data-token-name');
  var status = document.getElementById('status');
  var list = document.getElementById('keys');
  var empty = document.getElementById('empty');
  var form = document.getElementById('login');
  var searchForm = document.getElementById('search');
  var more = document.getElementById('more');
  var sections = new Map();
  var counts = { keys: 0, matched: 0 };
  var search = '';
  var token = '';
  // Each stream belongs to one generation: a new search ends the old stream and ignores what it still says.
  var generation = 0;
  var stop = null;

  function feedUrl() {
    return search ? eventsUrl + '?q=' + encodeURIComponent(search) : eventsUrl;
  }

  function tellCounts() {
    var shown = sections.size;
    if (search) more.textContent = shown + ' of ' + counts.matched + ' key(s) whose label holds \\u201c' + search + '\\u201d (' + counts.keys + ' in all)';
    else if (counts.keys > shown) more.textContent = shown + ' of ' + counts.keys + ' keys shown: the ones with the most findings, then the busiest; ' + (counts.keys - shown) + ' more, found by a search of their label';
    else more.textContent = shown + ' key(s)';
    more.hidden = false;
  }

  function setStatus(state, text) {
    status.setAttribute('data-state', state);
    status.textContent = text;
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function section(label) {
    var known = sections.get(label);
    if (known) return known;
    var root = el('section', 'key');
    root.setAttribute('data-key', label);
    var heading = el('h2');
    var banned = el('span', 'badge banned', 'BANNED');
    banned.hidden = true;
    var client = el('span', 'badge client');
    client.hidden = true;
    heading.append(el('code', 'label', label), banned, client);
    var stats = el('dl', 'stats');
    var fields = {};
    [['requests', 'requests'], ['refused', 'refused'], ['remaining', 'Remaining / Limit'], ['reset', 'window reset']].forEach(function (f) {
      stats.append(el('dt', null, f[1]));
      fields[f[0]] = el('dd', 'stat-' + f[0], '\\u2013');
      stats.append(fields[f[0]]);
    });
    var picture = el('div', 'timeline');
    var findings = el('ul', 'findings');
    root.append(heading, stats, picture, el('h3', null, 'Findings'), findings);
    list.append(root);
    empty.hidden = true;
    known = { root: root, banned: banned, client: client, fields: fields, picture: picture, findings: findings, banEnds: 0 };
    sections.set(label, known);
    tellCounts();
    return known;
  }

  function seconds(ms) {
    return Math.round(ms / 1000) + ' s';
  }

  function show(k) {
    var s = section(k.key);
    s.root.setAttribute('data-requests', String(k.requests));
    s.root.setAttribute('data-banned', String(k.banned));
    s.fields.requests.textContent = String(k.requests);
    s.fields.refused.textContent = String(k.refused);
    s.fields.remaining.textContent = k.remaining === null ? '\\u2013' : k.remaining + ' / ' + (k.limit === null ? '\\u2013' : k.limit);
    s.fields.reset.textContent = k.resetAtMs === null ? '\\u2013' : k.resetAtMs > k.atMs ? 'in ' + seconds(k.resetAtMs - k.atMs) : 'passed';
    if (k.resetAtMs !== null) s.fields.reset.title = new Date(k.resetAtMs).toISOString();
    s.banned.hidden = !k.banned;
    clearTimeout(s.banEnds);
    if (k.banned) {
      s.banned.title = 'until ' + new Date(k.bannedUntilMs).toISOString();
      // No event may come when the ban ends (nothing is sent while banned): the page ends it itself.
      s.banEnds = setTimeout(function () {
        s.banned.hidden = true;
        s.root.setAttribute('data-banned', 'false');
      }, Math.min(k.bannedUntilMs - k.atMs, 2147483647));
    }
    if (k.client) {
      s.client.hidden = false;
      s.client.className = 'badge client ' + (k.client.ready ? 'ready' : 'not-ready');
      s.client.textContent = 'client ' + (k.client.ready ? 'READY' : 'NOT READY') + (k.client.warnings ? ', ' + k.client.warnings + ' warning(s)' : '');
    }
    var svg = new DOMParser().parseFromString(k.svg, 'image/svg+xml').documentElement;
    if (svg && svg.namespaceURI === 'http://www.w3.org/2000/svg') s.picture.replaceChildren(document.importNode(svg, true));
    var items = k.findings.map(function (f) {
      var li = el('li');
      li.setAttribute('data-id', f.id);
      li.append(el('span', 'level ' + f.level, f.level.toUpperCase()), ' ' + f.side + ' ', el('code', null, f.id), ': ' + f.message);
      return li;
    });
    if (k.findingsDropped > 0) items.unshift(el('li', 'none', k.findingsDropped + ' earlier finding(s) not shown'));
    if (items.length === 0) items.push(el('li', 'none', 'none so far'));
    s.findings.replaceChildren.apply(s.findings, items);
  }

  function dispatch(name, data) {
    if (name === 'key') show(JSON.parse(data));
    else if (name === 'hello' || name === 'keys') {
      var told = JSON.parse(data);
      counts.keys = told.keys;
      if (name === 'hello') {
        counts.matched = told.matched;
        setStatus('live', 'live');
      }
      tellCounts();
    }
  }

  function listen() {
    var mine = generation;
    var source = new EventSource(feedUrl());
    stop = function () { source.close(); };
    ['hello', 'key', 'keys'].forEach(function (name) {
      source.addEventListener(name, function (e) { if (mine === generation) dispatch(name, e.data); });
    });
    source.onerror = function () {
      if (mine !== generation) return;
      setStatus('reconnecting', 'reconnecting\\u2026');
      // EventSource retries a dropped stream itself, but gives up on an answer that is not a stream
      // (a proxy restarting answers 503 or nothing): then a new one, later.
      if (source.readyState === EventSource.CLOSED) setTimeout(function () { if (mine === generation) listen(); }, 2000);
    };
  }

  // The event-stream format (the WHATWG HTML standard's, which the feed writes with LF only):
  // events end with a blank line; "event:" names one, "data:" lines carry it, ":" starts a comment.
  function frames(buffer) {
    var end;
    while ((end = buffer.indexOf('\\n\\n')) >= 0) {
      var name = 'message';
      var data = [];
      buffer.slice(0, end).split('\\n').forEach(function (line) {
        var colon = line.indexOf(':');
        if (colon === 0) return;
        var field = colon < 0 ? line : line.slice(0, colon);
        var value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      });
      buffer = buffer.slice(end + 2);
      if (data.length > 0) dispatch(name, data.join('\\n'));
    }
    return buffer;
  }

  function stream() {
    var mine = generation;
    var controller = new AbortController();
    var wait = 2000;
    stop = function () { controller.abort(); };
    setStatus('connecting', 'connecting\\u2026');
    fetch(feedUrl(), { headers: { authorization: 'Bearer ' + token, accept: 'text/event-stream' }, cache: 'no-store', credentials: 'omit', signal: controller.signal })
      .then(function (res) {
        if (res.status === 401 || res.status === 403) {
          setStatus('refused', 'the ' + tokenName + ' was refused');
          form.hidden = false;
          return;
        }
        if (res.status === 503) wait = 1000 * (Number(res.headers.get('retry-after')) || 2);
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        var reader = res.body.getReader();
        var decoder = new TextDecoder();
        var buffer = '';
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) throw new Error('the stream ended');
            if (mine === generation) buffer = frames(buffer + decoder.decode(chunk.value, { stream: true }));
            return pump();
          });
        }
        return pump();
      })
      .catch(function () {
        if (mine !== generation) return;
        setStatus('reconnecting', wait > 2000 ? 'the view has all the watchers it takes; trying again\\u2026' : 'reconnecting\\u2026');
        setTimeout(function () { if (mine === generation) stream(); }, wait);
      });
  }

  function start() {
    if (!needsToken) listen();
    else if (token) stream();
  }

  searchForm.addEventListener('submit', function (e) {
    e.preventDefault();
    search = document.getElementById('q').value.trim();
    generation++;
    if (stop) stop();
    sections.forEach(function (s) { clearTimeout(s.banEnds); });
    sections.clear();
    list.replaceChildren();
    empty.hidden = false;
    start();
  });

  if (!needsToken) return start();
  var m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    // Out of the address bar and the history at once: the token lives only in this page's memory.
    history.replaceState(null, '', location.pathname + location.search);
    token = decodeURIComponent(m[1]);
    return start();
  }
  setStatus('waiting', 'the ' + tokenName + ' is needed');
  form.hidden = false;
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var input = document.getElementById('token');
    token = input.value;
    input.value = '';
    if (!token) return;
    form.hidden = true;
    start();
  });
})();
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's policy, sent as a header: its one script and one style by hash, connections to its own
 * origin only, and nothing else (no image but the empty data: icon, no font, frame, form target or base).
 */
export const LIVE_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  `style-src ${hash(CSS)}`,
  "connect-src 'self'",
  // The empty icon: without one a browser asks the origin for /favicon.ico, which the proxy would forward.
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function livePage({ title, eventsUrl, token, tokenName = 'admin token' }: LivePageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body data-events="${esc(eventsUrl)}" data-auth="${token ? 'token' : 'none'}" data-token-name="${esc(tokenName)}">
<header><h1>${esc(title)}</h1><span id="status" data-state="connecting">connecting…</span></header>
<form id="login" hidden><label>${esc(tokenName.charAt(0).toUpperCase() + tokenName.slice(1))} <input id="token" type="password" autocomplete="off" spellcheck="false"></label><button type="submit">Watch</button></form>
<form id="search"><label>Keys whose label holds <input id="q" type="search" maxlength="100" autocomplete="off" spellcheck="false"></label><button type="submit">Show</button></form>
<p id="more" hidden></p>
<p id="empty">No request with a key has passed yet. Each key appears here with its first request.</p>
<main id="keys"></main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

// What an answer may say about a failure underneath: the part and the error code, never the addresses,
// host names, users, database names and paths that Node, pg, ioredis and the file system put in their
// messages; those are for the operator's log (server/README.md, Decisions). Keys and secrets are
// another matter: spec/rules/redact.js.

/** Words for the errno codes Node puts after a syscall name ("connect ECONNREFUSED 127.0.0.1:5432"). */
const SOCKET_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  ETIMEDOUT: 'timed out',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EAI_FAIL: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host down',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  EADDRINUSE: 'address in use',
  EADDRNOTAVAIL: 'address not available',
};

const SYSCALL = String.raw`(?:connect|getaddrinfo|getnameinfo|query[A-Za-z]*|read|write|writev|listen|bind|send|recv|shutdown|close)`;

// Order matters: the whole phrasings first, then URLs (which hold users and hosts), then addresses, then paths.
const RULES: ReadonlyArray<[RegExp, string | ((...groups: string[]) => string)]> = [
  // "connect ECONNREFUSED 127.0.0.1:5432", "getaddrinfo ENOTFOUND db.internal": the syscall's target is the secret.
  [new RegExp(String.raw`\b${SYSCALL} (E[A-Z0-9_]+)\b(?: [^\s,;)]*[^\s,;).])?`, 'g'), (_m, code) => `${SOCKET_ERRORS[code!] ?? 'failed'} (${code})`],
  // fs: "ENOSPC: no space left on device, write '/var/data/db.json'" (and "-> '/dest'" for rename, link).
  [/\b(E[A-Z0-9_]+): ([^,]+), [a-z]+(?: '[^']*')?(?: -> '[^']*')?/g, (_m, code, words) => `${words} (${code})`],
  // pg: `password authentication failed for user "app"`, `database "pets" does not exist`, pg_hba's host.
  [/\b(user|role|database|host) "[^"]*"/gi, (_m, what) => `the ${what!.toLowerCase()}`],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, '<url>'],
  // IPv6: bracketed (with a port), or with "::", or all eight groups; a dotted quad may end it.
  [/\[[0-9a-f:.%\w]*:[0-9a-f:.%\w]*\](?::\d+)?/gi, '<address>'],
  [/(?<![\w:.])[0-9a-f:]*::[0-9a-f:]*(?:\d{1,3}(?:\.\d{1,3}){3})?(?:%[\w.]+)?(?![\w.])/gi, '<address>'],
  [/(?<![\w:.])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?:%[\w.]+)?(?::\d+)?/gi, '<address>'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '<address>'],
  // host:port where the host has a dot or is localhost ("db.internal:5432").
  [/\b(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{1,5}\b/gi, '<address>'],
  // Paths: POSIX (a slash after a space, quote, bracket or the start), Windows and home-relative.
  [/(?<=^|[\s'"(=[,])(?:~?\/[^\s'"(),;\]]+)/g, '<path>'],
  [/\b[a-z]:\\[^\s'"(),;]*/gi, '<path>'],
];

/**
 * `text` (an error's message, or a sentence built around one) without addresses, host names, users,
 * database names, URLs or file paths, keeping the codes: "connect ECONNREFUSED 127.0.0.1:5298" reads
 * "connection refused (ECONNREFUSED)". Parts joined with "; " that come out the same are said once.
 */
export function publicMessage(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  return [...new Set(out.split('; '))].join('; ');
}

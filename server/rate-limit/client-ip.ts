// Which client sent a request, and the partition a request without a valid key is counted in. Only
// what trusted proxies wrote, in the one header they write, is believed (why: server/README.md,
// Decisions, "Client address"). IPv6 counts per /64: a client usually holds a whole one, and would
// otherwise rotate through 2^64 partitions.
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

/** false: the socket peer is the client. A number: that many proxies in front. A list: the proxies' addresses or CIDR ranges. */
export type TrustProxy = false | number | readonly string[];

/** The forwarding header the trusted proxies write (nginx and most load balancers: X-Forwarded-For). */
export const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded'] as const;
export type ForwardingHeader = (typeof FORWARDING_HEADERS)[number];

/** Matches addresses against the trusted proxies' ranges ('10.0.0.0/8', '::1', 'fd00::/8'). */
export function trustedRanges(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address = '', bits] = range.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (!isIP(address)) throw new Error(`"${range}" is not an IP address or CIDR range`);
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** The elements of a Forwarded field (RFC 7239), in order: each its parameters by lower-case name, unquoted. */
export function forwardedElements(value: string): Array<Map<string, string>> {
  return value.split(',').map((element) => {
    const params = new Map<string, string>();
    for (const pair of element.split(';')) {
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const quoted = pair.slice(at + 1).trim();
      params.set(pair.slice(0, at).trim().toLowerCase(), quoted.replace(/^"|"$/g, ''));
    }
    return params;
  });
}

/** The `for=` addresses of a Forwarded field, in order; an obfuscated or unknown node is undefined. */
function forwardedFor(value: string): Array<string | undefined> {
  return forwardedElements(value).map((params) => {
    let node = params.get('for');
    if (node === undefined) return undefined;
    if (node.startsWith('[')) node = node.slice(1, node.indexOf(']'));
    else if (isIPv4(node.split(':')[0] ?? '')) node = node.split(':')[0]!;
    return isIP(node) ? node : undefined;
  });
}

function forwardedChain(headers: Readonly<Record<string, string | string[] | undefined>>, header: ForwardingHeader): Array<string | undefined> {
  const raw = headers[header];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!value) return [];
  if (header === 'forwarded') return forwardedFor(value);
  return value.split(',').map((a) => (isIP(a.trim()) ? a.trim() : undefined));
}

/**
 * The socket peer, or behind trusted proxies the nearest address in `header`'s chain that none of them
 * wrote; a missing or garbled entry counts against the last trusted proxy, never what the client wrote.
 */
export function clientAddress(
  socketAddress: string | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  trust: TrustProxy,
  header: ForwardingHeader,
  ranges?: BlockList,
): string | undefined {
  if (trust === false || socketAddress === undefined) return socketAddress;
  const chain = [...forwardedChain(headers, header), socketAddress];
  let at = chain.length - 1;
  if (typeof trust === 'number') {
    at = Math.max(0, chain.length - 1 - trust);
  } else {
    const list = ranges ?? trustedRanges(trust);
    const trusted = (a: string | undefined) => a !== undefined && list.check(a, isIPv6(a) ? 'ipv6' : 'ipv4');
    while (at > 0 && trusted(chain[at])) at--;
  }
  for (let i = at; i < chain.length; i++) if (chain[i] !== undefined) return chain[i];
  return socketAddress;
}

/** 127.0.0.0/8 or ::1 (IPv4-mapped or zoned too): a client on this machine. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(address.split('%')[0]!) && expandIPv6(address).every((group, i) => group === (i === 7 ? '1' : '0'));
}

export function ipPartitionId(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(remoteAddress)) return remoteAddress;
  if (isIPv6(remoteAddress)) return `${expandIPv6(remoteAddress).slice(0, 4).join(':')}::/64`;
  return 'unknown';
}

function expandIPv6(address: string): string[] {
  const withoutZone = address.split('%')[0]!;
  const [head = '', tail] = withoutZone.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  let left = parse(head);
  let right = tail === undefined ? [] : parse(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4 handled above; 64:ff9b::1.2.3.4 here) is two groups.
  const toGroups = (groups: string[]) =>
    groups.flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = toGroups(left);
  right = toGroups(right);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16).toString(16));
}

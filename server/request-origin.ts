// The origin a request reached ("http://pets.example:3000"), which the served contract names first:
// the Host the client sent (only a well-formed host[:port]), else the connection's local address.
// Behind trusted proxies the client reached the proxy, so the one nearest this server is believed, in
// the header family --trust-proxy-header names (server/README.md, Decisions, `servers`).
import { type BlockList, isIPv4, isIPv6 } from 'node:net';
import { forwardedElements, type ForwardingHeader, type TrustProxy } from './rate-limit/client-ip.ts';

export interface Reached {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The socket peer: the proxy, when there is one. */
  readonly peer: string | undefined;
  /** The local end of the connection; absent for an injected request. */
  readonly local: { readonly address?: string | undefined; readonly port?: number | undefined };
}

export interface OriginRules {
  readonly trustProxy: TrustProxy;
  readonly trustProxyHeader: ForwardingHeader;
  /** The trusted proxies' ranges, when trustProxy lists them. */
  readonly ranges?: BlockList | undefined;
  /** Used when nothing else names the origin: the listener's own URI. */
  readonly fallback: string;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:\\[([0-9A-Fa-f:.]+)\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);

/** `value` when it is a host[:port] a URL can carry (port 1 to 65535), else undefined. */
export function wellFormedHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 261) return undefined;
  const match = HOST.exec(value);
  if (!match) return undefined;
  const [, ipv6, port] = match;
  if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
  return value;
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
const last = (value: string | undefined) => value?.split(',').at(-1)?.trim();
const proto = (value: string | undefined) => (value && /^https?$/i.test(value) ? value.toLowerCase() : undefined);

function fromTrustedProxy(peer: string | undefined, rules: OriginRules): boolean {
  if (rules.trustProxy === false) return false;
  if (typeof rules.trustProxy === 'number') return true;
  return peer !== undefined && rules.ranges !== undefined && rules.ranges.check(peer, isIPv6(peer) ? 'ipv6' : 'ipv4');
}

/** Host and scheme as the proxy nearest this server wrote them: the last value of its header family. */
function forwarded(headers: Reached['headers'], header: ForwardingHeader): { host?: string | undefined; scheme?: string | undefined } {
  if (header === 'forwarded') {
    const element = forwardedElements(one(headers.forwarded) ?? '').at(-1);
    return { host: wellFormedHost(element?.get('host')), scheme: proto(element?.get('proto')) };
  }
  return { host: wellFormedHost(last(one(headers['x-forwarded-host']))), scheme: proto(last(one(headers['x-forwarded-proto']))) };
}

function listened(local: Reached['local']): string | undefined {
  const { address, port } = local;
  if (!address || !port) return undefined;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return isIPv4(v4) ? `${v4}:${port}` : `[${address.split('%')[0]}]:${port}`;
}

/** The origin, without a trailing slash: "http://host[:port]". */
export function requestOrigin(reached: Reached, rules: OriginRules): string {
  const own = wellFormedHost(one(reached.headers.host)) ?? listened(reached.local);
  const proxy = fromTrustedProxy(reached.peer, rules) ? forwarded(reached.headers, rules.trustProxyHeader) : {};
  const host = proxy.host ?? own;
  if (host === undefined) return rules.fallback;
  return `${proxy.scheme ?? 'http'}://${host}`;
}

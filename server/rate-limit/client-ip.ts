// The partition an unauthenticated request is counted in. IPv6 clients usually hold a whole
// /64, so counting single IPv6 addresses would let one client rotate through 2^64 partitions.
import { isIPv4, isIPv6 } from 'node:net';

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

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ipPartitionId } from './client-ip.ts';

const cases: Array<[string | undefined, string]> = [
  ['127.0.0.1', '127.0.0.1'],
  ['203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['::1', '0:0:0:0::/64'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
  ['2001:DB8:0001:0002::9', '2001:db8:1:2::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  [undefined, 'unknown'],
  ['not an address', 'unknown'],
];

for (const [address, expected] of cases) {
  test(`${String(address)} is counted as ${expected}`, () => {
    assert.is(ipPartitionId(address), expected);
  });
}

test.run();

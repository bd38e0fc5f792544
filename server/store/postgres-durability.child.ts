// Run by postgres-durability.test.ts, which kills it with SIGKILL mid-load: creates pets through a
// PostgresPetStore, several at a time, and prints "ack <id>" the moment each create resolves.
// Writes to a pipe are synchronous on Linux, so a printed ack reached the parent before the kill.
import { PostgresPetStore } from './postgres-store.ts';

const [url, schema] = process.argv.slice(2);
if (!url || !schema) {
  console.error('usage: postgres-durability.child.ts <url> <schema>');
  process.exit(2);
}

let store: PostgresPetStore;
try {
  store = await PostgresPetStore.open({ url, schema, connectTimeoutMs: 2_000 }, []);
} catch (error) {
  console.error(`${(error as { code?: string }).code}: ${(error as Error).message}`);
  process.exit(1);
}
process.stdout.write('ready\n');

const LANES = 8;
let n = 0;
await Promise.all(
  Array.from({ length: LANES }, async () => {
    for (;;) {
      const pet = await store.create({ name: `crash ${n++}`, categoryId: 1, status: 'available' });
      process.stdout.write(`ack ${pet.id}\n`);
    }
  }),
);

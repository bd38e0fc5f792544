// Stopping works like any server: SIGTERM to `npm start`, `npm run mock` or `npm run proxy` (what a process manager
// sends: npm passes it to a shell that does not pass it on) and Ctrl-C (SIGINT to the whole process
// group, what a terminal sends) stop the server itself, and no process of the tree survives holding
// the port. Runs the compiled package, as `npm start` does.
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitGone, collectOutput, descendants, spawnChild, waitForOutput } from '../lib/processes.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

const t = suite('stopping through npm');

const START = ['start', '--', '--memory', '--port', '0', '--quiet'];
const MOCK = ['run', 'mock', '--', '--port', '0', '--quiet'];
const SERVER = /listening on (http:\/\/\S+)\/v1/;
const PRISM = /Prism mock of .* at (http:\/\/\S+)\/v1/;
const PROXY_ARGS = ['run', 'proxy', '--', '--target', 'http://127.0.0.1:9', '--port', '0'];
const PROXY = /^proxy: (http:\/\/\S+) ->/m;
const cases: Array<[string, string[], RegExp, 'SIGTERM to npm' | 'Ctrl-C']> = [
  ['npm start', START, SERVER, 'SIGTERM to npm'],
  ['npm start', START, SERVER, 'Ctrl-C'],
  ['npm run mock', MOCK, PRISM, 'SIGTERM to npm'],
  ['npm run mock', MOCK, PRISM, 'Ctrl-C'],
  ['npm run proxy', PROXY_ARGS, PROXY, 'SIGTERM to npm'],
  ['npm run proxy', PROXY_ARGS, PROXY, 'Ctrl-C'],
];
for (const [name, args, ready, how] of cases) {
  t(`${name}, ${how}: the server stops, nothing is left holding the port`, async () => {
    const npm = spawnChild('npm', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], group: true });
    const output = collectOutput(npm);
    const origin = (await waitForOutput(npm, output, ready, START_BOUND_MS, name))[1]!;
    const tree = [npm.pid!, ...descendants(npm.pid!)];
    assert.ok(tree.length >= 3, `npm runs the server through a shell: ${tree.join(', ')}`);
    if (how === 'Ctrl-C') process.kill(-npm.pid!, 'SIGINT');
    else npm.kill('SIGTERM');
    const left = await awaitGone(tree, 20_000);
    assert.equal(left, [], `no process of the tree survives; the tree said:\n${output.text().slice(-1500)}`);
    assert.not.ok(
      await fetch(`${origin}/v1/pets`).then(
        () => true,
        () => false,
      ),
      `${origin} still answers`,
    );
  });
}

t.run();

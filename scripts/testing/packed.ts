// The package as a consumer gets it, for package.test.ts (the lean install) and package-full.test.ts
// (the full one): `npm pack` of this repository, installed into a fresh project, with a stand-in for
// scarf.sh listening, and the size of what was installed.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const execFileAsync = promisify(execFile);

export const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

const packages = (dir: string) =>
  Object.keys(JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8')).packages).filter((p) => p.startsWith('node_modules/')).length;

export interface Trap {
  port: number;
  seen: string[];
  close: () => void;
}

/**
 * A stand-in for scarf.sh: @scarf/scarf (Swagger UI's install analytics) reports to localhost at
 * SCARF_LOCAL_PORT when that is set. Both loopback addresses, as "localhost" may name either.
 */
export async function telemetryTrap(): Promise<Trap> {
  const seen: string[] = [];
  const listen = (host: string, port: number) =>
    new Promise<Server | null>((resolve) => {
      const server = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.end();
      });
      server.once('error', () => resolve(null));
      server.listen(port, host, () => resolve(server));
    });
  const v4 = (await listen('127.0.0.1', 0))!;
  const port = (v4.address() as AddressInfo).port;
  const v6 = await listen('::1', port);
  return { port, seen, close: () => [v4, v6].forEach((s) => s?.close()) };
}

/** The environment npm installs with: the machine's analytics settings left out, so that the package's own is what is tested. */
export const installEnv = (trapPort: number): NodeJS.ProcessEnv => {
  const { SCARF_ANALYTICS: _a, SCARF_NO_ANALYTICS: _b, DO_NOT_TRACK: _c, ...env } = process.env;
  return { ...env, npm_config_update_notifier: 'false', SCARF_LOCAL_PORT: String(trapPort) };
};

/** `npm pack` of this repository into `work`; the tarball's path. */
export function pack(work: string): string {
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root)) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    entryCount: number;
  }>;
  process.stdout.write(
    `  [pack] ${packed[0]!.filename}: ${packed[0]!.entryCount} files, ${(packed[0]!.size / 1e6).toFixed(2)} MB packed, ${(packed[0]!.unpackedSize / 1e6).toFixed(2)} MB unpacked\n`,
  );
  return join(work, packed[0]!.filename);
}

export interface Install {
  dir: string;
  /** What npm said installing it, warnings included (npm's install-scripts notice is one). */
  output: string;
  packages: number;
  mb: number;
}

/** The tarball installed into a fresh project `work/name`, without the optional dependencies when `omitOptional`. */
export async function consumer(work: string, name: string, tarball: string, omitOptional: boolean, trap: Trap): Promise<Install> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  // --prefer-offline: the registry's metadata npm already holds is used without asking again (the same
  // CPU, half the wall time here: 44 s to 23 s for the full install); what is missing is still fetched.
  const args = ['install', tarball, ...(omitOptional ? ['--omit=optional'] : []), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'];
  const said = await execFileAsync('npm', args, { cwd: dir, encoding: 'utf8', env: installEnv(trap.port), maxBuffer: 16 * 1024 * 1024 });
  const mb = folderBytes(join(dir, 'node_modules')) / 1e6;
  process.stdout.write(`  [install] ${name}: ${packages(dir)} packages, ${mb.toFixed(1)} MB in node_modules\n`);
  return { dir, output: `${said.stdout}${said.stderr}`, packages: packages(dir), mb };
}

/**
 * The README quotes the install sizes on its install lines (`block`, its "As a dependency" block); a quote may drift with the registry's
 * versions, but not far: packages within 5 %, megabytes within 15 % of what this run measured.
 */
export function assertQuoted(block: string, name: string, args: string[], measured: Install): void {
  const line = block.split('\n').find((l) => l.split('#')[0]!.trim() === ['npm', 'install', 'adoption-store-kit', ...args].join(' '));
  assert.ok(line, `README.md has the line npm install adoption-store-kit ${args.join(' ')}`);
  const quoted = /# (\d+) packages, (\d+) MB/.exec(line);
  assert.ok(quoted, `README.md quotes the ${name} install's size`);
  const [packagesQuoted, mbQuoted] = [Number(quoted[1]), Number(quoted[2])];
  const near = (a: number, b: number, share: number) => Math.abs(a - b) <= share * b;
  assert.ok(near(packagesQuoted, measured.packages, 0.05), `README says ${packagesQuoted} packages for the ${name} install; it has ${measured.packages}`);
  assert.ok(near(mbQuoted, measured.mb, 0.15), `README says ${mbQuoted} MB for the ${name} install; it has ${measured.mb.toFixed(1)} MB`);
}

#!/usr/bin/env node
// The package's command: `adoption-kit <serve|conform|mock|proxy|client-report|load-merge> [options]`. Each command's
// module is loaded only when it is asked for, so `serve` never loads Dredd or Prism.
import { endSoonAfter, exitOnKitFailure } from '../lib/kit-failure.ts';

const COMMANDS: Record<string, { what: string; load: () => Promise<{ main(argv: string[]): Promise<number> }> }> = {
  serve: { what: 'run the reference server (npm start)', load: () => import('../server/cli.ts') },
  conform: { what: 'check any implementation against the contract (npm run conform)', load: () => import('../conformance/cli.ts') },
  mock: { what: 'run a Prism mock of the contract (npm run mock)', load: () => import('../conformance/mock.ts') },
  proxy: { what: 'forward to any implementation and judge the traffic: the server and its clients (npm run proxy)', load: () => import('../proxy/cli.ts') },
  'client-report': {
    what: "how each client of a running reference server honoured the specification's obligations",
    load: () => import('../server/client-report/cli.ts'),
  },
  'load-merge': {
    what: 'one verdict from the k6 summaries of a run split over several generators (npm run load:merge)',
    load: () => import('../load/cli/merge.ts'),
  },
};

const HELP = `Usage: adoption-kit <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { what }]) => `  ${name.padEnd(14)} ${what}`)
  .join('\n')}

Run "adoption-kit <command> --help" for a command's options.
`;

const [name, ...argv] = process.argv.slice(2);
const command = name === undefined ? undefined : COMMANDS[name];
if (!name || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(HELP);
} else if (!command) {
  process.stderr.write(`adoption-kit: unknown command "${name}"\n\n${HELP}`);
  process.exitCode = 2;
} else {
  // The judging commands never end in Node's 1 on a crash, even after their verdict (the server logs and exits its own way).
  if (name !== 'serve' && name !== 'mock') exitOnKitFailure(name);
  const code = await (await command.load()).main(argv);
  if (code !== 0) process.exitCode = code;
  endSoonAfter(code);
}

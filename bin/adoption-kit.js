#!/usr/bin/env node
// The package's command: `adoption-kit <serve|conform|mock> [options]`. Each subcommand is a module
// exporting main(argv) → exit code; TypeScript is loaded through tsx, a runtime dependency.
import { register } from 'tsx/esm/api';

const COMMANDS = {
  serve: ['../server/cli.ts', 'run the reference server (npm start)'],
  conform: ['../conformance/cli.ts', 'check any implementation against the contract (npm run conform)'],
  mock: ['../conformance/mock.ts', 'run a Prism mock of spec/openapi.yaml (npm run mock)'],
  'client-report': ['../server/client-report/cli.ts', "how each client of a running reference server honoured the specification's obligations"],
};

const HELP = `Usage: adoption-kit <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, [, what]]) => `  ${name.padEnd(14)} ${what}`)
  .join('\n')}

Run "adoption-kit <command> --help" for a command's options.
`;

const [name, ...argv] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(HELP);
} else if (!(name in COMMANDS)) {
  process.stderr.write(`adoption-kit: unknown command "${name}"\n\n${HELP}`);
  process.exitCode = 2;
} else {
  register();
  const { main } = await import(new URL(COMMANDS[name][0], import.meta.url).href);
  const code = await main(argv);
  if (code !== 0) process.exitCode = code;
}

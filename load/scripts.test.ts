// Static checks of the k6 scripts: what k6's JavaScript runtime (goja, k6 v0.47 and later) can
// load, the modules they may import, and what every script must export. Everything here can fail:
// the syntax checker is itself tested on each construct it refuses.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const here = dirname(fileURLToPath(import.meta.url));
const SCRIPTS = ['smoke.js', 'rate-limit.js', 'capacity.js'];
const LIB = readdirSync(join(here, 'lib')).filter((f) => f.endsWith('.js'));
/** What k6 loads besides the scripts: generated from lib/bundle.js (load/bundle.ts), requests.js included. */
const BUNDLE = 'lib/bundle.cjs';
/** The shared rules the scripts import: k6 loads them like any local file. */
const RULES = readdirSync(join(here, '..', 'spec', 'rules')).filter((f) => f.endsWith('.js'));
/** The judge's rule engine (judge/rules): plain ES modules too, bundled for k6 with load/lib. */
const JUDGE_RULES = readdirSync(join(here, '..', 'judge', 'rules')).filter((f) => f.endsWith('.js'));
const ALL = [...SCRIPTS, ...LIB.map((f) => `lib/${f}`), ...RULES.map((f) => `../spec/rules/${f}`), ...JUDGE_RULES.map((f) => `../judge/rules/${f}`)];
const K6_MODULES = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/execution']);
/** The lib modules Node unit-tests must import without k6: they may import only each other and spec/rules. */
const PURE = [
  'blame.js',
  'bundle.js',
  'config.js',
  'key-limit.js',
  'knee.js',
  'metrics-table.js',
  'origin.js',
  'pacing.js',
  'phases.js',
  'shapes.js',
  'step-types.js',
  'summary.js',
  'thresholds.js',
  'timeline.js',
  'verdict.js',
];
/** Names that exist in Node or browsers but not in k6 v0.47's init or VU context. */
const FOREIGN_GLOBALS = new Set([
  'process',
  'require',
  'module',
  'exports',
  'Buffer',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'globalThis',
  '__dirname',
  '__filename',
  'fetch',
  'structuredClone',
  'window',
  'document',
]);

const source = (file: string) => readFileSync(join(here, file), 'utf8');

/**
 * Syntax newer than what k6 v0.47 runs for certain. Before v0.52 k6 ran goja with a Babel fallback
 * limited to ES2015-era transforms; optional chaining arrived only later (grafana/k6#2168), so the
 * scripts stay within ES2015 plus modules.
 */
export function unsupportedSyntax(text: string, file = 'script.js'): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push(`${file}:${line + 1}: ${what}`);
  };
  const banned: Partial<Record<ts.SyntaxKind, string>> = {
    [ts.SyntaxKind.QuestionQuestionToken]: 'nullish coalescing (??)',
    [ts.SyntaxKind.QuestionQuestionEqualsToken]: 'logical assignment (??=)',
    [ts.SyntaxKind.BarBarEqualsToken]: 'logical assignment (||=)',
    [ts.SyntaxKind.AmpersandAmpersandEqualsToken]: 'logical assignment (&&=)',
    [ts.SyntaxKind.AsteriskAsteriskToken]: 'exponent operator (**)',
    [ts.SyntaxKind.AsteriskAsteriskEqualsToken]: 'exponent assignment (**=)',
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) && node.questionDotToken) {
      at(node, 'optional chaining (?.)');
    }
    if (ts.isBinaryExpression(node) && banned[node.operatorToken.kind]) at(node, banned[node.operatorToken.kind]!);
    if (ts.isSpreadAssignment(node)) at(node, 'object spread ({...x})');
    if (ts.isBindingElement(node) && node.dotDotDotToken && ts.isObjectBindingPattern(node.parent)) at(node, 'object rest ({...x} =)');
    if (ts.isPropertyDeclaration(node)) at(node, 'class field');
    if (ts.isPrivateIdentifier(node)) at(node, 'private name (#x)');
    if (ts.isClassStaticBlockDeclaration(node)) at(node, 'class static block');
    if (ts.isAwaitExpression(node) || (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword))) {
      at(node, 'async/await');
    }
    if ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node)) && node.asteriskToken) at(node, 'generator');
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments?.hasTrailingComma)
      at(node, 'trailing comma after the last argument (ES2017)');
    if (ts.isFunctionLike(node) && node.parameters.hasTrailingComma) at(node, 'trailing comma after the last parameter (ES2017)');
    if (node.kind === ts.SyntaxKind.BigIntLiteral) at(node, 'BigInt literal');
    if (ts.isNumericLiteral(node) && node.getText(sf).includes('_')) at(node, 'numeric separator');
    if (ts.isCatchClause(node) && !node.variableDeclaration) at(node, 'optional catch binding');
    if (ts.isRegularExpressionLiteral(node)) {
      const t = node.text;
      const flags = t.slice(t.lastIndexOf('/') + 1);
      if (/[sdv]/.test(flags)) at(node, `regular expression flag ${flags}`);
      if (/\(\?<[=!]/.test(t)) at(node, 'regular expression lookbehind');
      else if (/\(\?</.test(t)) at(node, 'regular expression named group');
    }
    if (ts.isMetaProperty(node)) at(node, 'import.meta');
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) at(node, 'dynamic import()');
    if (ts.isIdentifier(node) && FOREIGN_GLOBALS.has(node.text) && !isPropertyName(node)) at(node, `${node.text} (not a k6 global)`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  // Top-level await needs no async function around it: caught above as an AwaitExpression.
  return found;
}

/** `x.process` or `{ process: 1 }`: a property called like a global, not the global. */
function isPropertyName(node: ts.Identifier): boolean {
  const p = node.parent;
  return (
    ((ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p)) && p.name === node) ||
    (ts.isBindingElement(p) && p.propertyName === node)
  );
}

function importsOf(text: string): string[] {
  const sf = ts.createSourceFile('x.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const specs: string[] = [];
  for (const st of sf.statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      specs.push(st.moduleSpecifier.text);
    }
  }
  return specs;
}

function exportsOf(text: string): Set<string> {
  const sf = ts.createSourceFile('x.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const names = new Set<string>();
  for (const st of sf.statements) {
    const exported = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) names.add('default');
    if (ts.isFunctionDeclaration(st) && st.name) names.add(st.name.text);
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
  }
  return names;
}

const constructs: Array<[string, string]> = [
  ['optional chaining (?.)', 'const a = {}; const b = a?.x;'],
  ['optional chaining (?.)', 'const f = null; f?.();'],
  ['nullish coalescing (??)', 'const a = null ?? 1;'],
  ['logical assignment (??=)', 'let a; a ??= 1;'],
  ['logical assignment (||=)', 'let a; a ||= 1;'],
  ['exponent operator (**)', 'const a = 2 ** 3;'],
  ['object spread ({...x})', 'const a = {}; const b = { ...a };'],
  ['object rest ({...x} =)', 'const { a, ...rest } = { a: 1 };'],
  ['class field', 'class A { x = 1; }'],
  ['private name (#x)', 'class A { #x; }'],
  ['async/await', 'async function f() {}'],
  ['async/await', 'const x = await Promise.resolve(1);'],
  ['generator', 'function* g() {}'],
  ['trailing comma after the last argument (ES2017)', 'Math.max(1,\n  2,\n);'],
  ['trailing comma after the last parameter (ES2017)', 'function f(a,\n b,\n) {}'],
  ['BigInt literal', 'const a = 10n;'],
  ['numeric separator', 'const a = 1_000;'],
  ['optional catch binding', 'try { f(); } catch { }'],
  ['regular expression flag s', 'const r = /a.b/s;'],
  ['regular expression named group', 'const r = /(?<year>\\d+)/;'],
  ['regular expression lookbehind', 'const r = /(?<=a)b/;'],
  ['import.meta', 'const u = import.meta.url;'],
  ['dynamic import()', "import('./x.js');"],
  ['process (not a k6 global)', 'const e = process.env.X;'],
  ['setTimeout (not a k6 global)', 'setTimeout(function () {}, 1);'],
];

for (const [what, code] of constructs) {
  test(`the syntax check refuses ${what}: ${code.replace(/\n/g, ' ')}`, () => {
    const found = unsupportedSyntax(code);
    assert.ok(
      found.some((f) => f.endsWith(`: ${what}`)),
      `${JSON.stringify(found)}`,
    );
  });
}

test('the syntax check accepts the ES2015 the scripts are written in', () => {
  const ok =
    "import http from 'k6/http';\nconst a = { b: 1 }; const { b } = a; const c = [...[1, 2]]; const f = (x) => `${x}`;\nlet g = Object.assign({}, a); for (const k of Object.keys(g)) { g[k] = Math.pow(2, 3); }\nexport function handleSummary(d) { return { stdout: JSON.stringify(d) }; }\nclass A { constructor() { this.x = 1; } m() { return this.x; } }\nconst ex = { process: 1 }; ex.process = 2;";
  assert.equal(unsupportedSyntax(ok), []);
});

for (const file of ALL) {
  test(`${file} starts with // @ts-check and uses only syntax k6 v0.47 runs`, () => {
    const text = source(file);
    assert.ok(text.startsWith('// @ts-check\n'), 'first line must be // @ts-check');
    assert.equal(unsupportedSyntax(text, file), []);
  });

  test(`${file} imports only k6 core modules and local files that exist`, () => {
    for (const spec of importsOf(source(file))) {
      if (K6_MODULES.has(spec)) continue;
      assert.ok(/^\.{1,2}\/[\w./-]+\.c?js$/.test(spec), `${spec}: neither a k6 core module nor a local .js file (no remote imports, no npm)`);
      assert.ok(existsSync(join(here, dirname(file), spec)), `${spec} does not exist`);
    }
  });
}

for (const file of PURE) {
  test(`lib/${file} imports nothing from k6, so Node can test it`, () => {
    for (const spec of importsOf(source(`lib/${file}`)))
      assert.ok(spec.startsWith('./') || spec.startsWith('../../spec/rules/') || spec.startsWith('../../judge/rules/'), `lib/${file} imports ${spec}`);
  });
}

for (const file of RULES) {
  test(`spec/rules/${file} imports only spec/rules, so k6, the server and the kit can all load it`, () => {
    for (const spec of importsOf(source(`../spec/rules/${file}`))) assert.ok(/^\.\/[\w-]+\.js$/.test(spec), `spec/rules/${file} imports ${spec}`);
  });
}

for (const file of JUDGE_RULES) {
  test(`judge/rules/${file} imports only judge/rules and spec/rules, so k6 and every driver can load it`, () => {
    for (const spec of importsOf(source(`../judge/rules/${file}`)))
      assert.ok(/^\.\/[\w-]+\.js$/.test(spec) || /^\.\.\/\.\.\/spec\/rules\/[\w-]+\.js$/.test(spec), `judge/rules/${file} imports ${spec}`);
  });
}

for (const file of SCRIPTS) {
  test(`${file} exports options and handleSummary, and has thresholds and scenarios`, () => {
    const text = source(file);
    const names = exportsOf(text);
    assert.ok(names.has('options'), 'exports options');
    assert.ok(names.has('handleSummary'), 'exports handleSummary');
    assert.ok(names.has('setup'), 'setup() fails fast when the target is down');
    // k6's --vus, --duration and --iterations replace the scenarios with one that runs `default`.
    assert.ok(names.has('default'), 'exports default, which k6 runs when given --vus, --duration or --iterations');
    assert.match(text, /thresholds:/);
    assert.match(text, /scenarios:/);
    // Every scenario's exec names an exported function.
    for (const m of text.matchAll(/exec: '([\w]+)'/g)) assert.ok(names.has(m[1]!), `scenario exec ${m[1]} is exported`);
  });
}

/** The local files an ES module k6 loads imports at run time (type imports in JSDoc load nothing). */
function localImports(file: string): string[] {
  return importsOf(source(file)).filter((spec) => !K6_MODULES.has(spec));
}

for (const file of SCRIPTS) {
  test(`${file} imports no ES module: what it needs besides k6 comes from the bundle, which k6 compiles without Babel`, () => {
    const from = dirname(join(here, file));
    for (const spec of localImports(file)) {
      const to = join(from, spec);
      assert.ok(to === join(here, BUNDLE), `${file} imports ${spec}: k6 v0.47 would run it through Babel (add it to lib/bundle.js)`);
    }
  });
}

test('the bundle has no import or export, so k6 v0.47 compiles it without Babel, and only syntax k6 runs', () => {
  const text = source(BUNDLE);
  const sf = ts.createSourceFile('bundle.cjs', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const modular = sf.statements.filter((st) => ts.isImportDeclaration(st) || ts.isExportDeclaration(st) || ts.isExportAssignment(st));
  assert.is(modular.length, 0);
  assert.ok(
    !sf.statements.some((st) => ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)),
    'an export modifier',
  );
  // A CommonJS file names module and exports; nothing else foreign may appear.
  const foreign = unsupportedSyntax(text, BUNDLE).filter((f) => !/: (module|exports) \(not a k6 global\)$/.test(f));
  assert.equal(foreign, []);
});

test('the bundle check can fail: an ES module is refused', () => {
  const sf = ts.createSourceFile('x.cjs', "export const a = 1;\nimport b from './b.js';", ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  assert.is(
    sf.statements.filter(
      (st) => ts.isImportDeclaration(st) || (ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)),
    ).length,
    2,
  );
});

test('the bundle offers every name the scripts import from it', () => {
  const offered = new Set(importsOfNames(source('lib/bundle.js')).map((n) => n.name));
  for (const file of SCRIPTS)
    for (const n of importsOfNames(source(file)))
      if (/bundle\.cjs$/.test(n.from)) assert.ok(offered.has(n.name), `${file} imports ${n.name}, which lib/bundle.js does not export`);
});

/** Each name an import or re-export statement brings in, with where from. */
function importsOfNames(text: string): Array<{ name: string; from: string }> {
  const sf = ts.createSourceFile('x.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const names: Array<{ name: string; from: string }> = [];
  for (const st of sf.statements) {
    if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const from = st.moduleSpecifier.text;
    const bindings = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : st.exportClause;
    if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) for (const e of bindings.elements) names.push({ name: e.name.text, from });
  }
  return names;
}

test('the load tsconfig checks every script against @types/k6 with // @ts-check', () => {
  const config = JSON.parse(source('tsconfig.json')) as { compilerOptions: Record<string, unknown>; include: string[] };
  for (const [k, v] of Object.entries({ allowJs: true, checkJs: true, noEmit: true, strict: true })) assert.is(config.compilerOptions[k], v, k);
  assert.equal(config.compilerOptions.types, ['k6']);
  assert.ok(
    config.include.includes('*.js') &&
      config.include.includes('lib/*.js') &&
      config.include.includes('../spec/rules/*.js') &&
      config.include.includes('../judge/rules/*.js'),
  );
});

test.run();

// Every must traces to the specification: each check and each shared rule names where it comes
// from, a section of spec/specification.md (the API's specification) or an RFC, and a must whose
// only source is a decision of the reference server (x-decision) or a point the specification
// leaves open is refused.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../conformance/catalogue.ts';
import { OPEN_POINTS } from '../conformance/open-points.ts';
import { RULES } from '../judge/rules/rules.js';

const specification = readFileSync(new URL('../spec/specification.md', import.meta.url), 'utf8');
const headings = [...specification.matchAll(/^(#{2,3}) (.+)$/gm)].map((m) => ({ depth: m[1]!.length, title: m[2]!.trim() }));

/** "Limits › Behaviour when the limit is exceeded" names a heading under a heading of the specification. */
function isSection(source: string): boolean {
  const [top, sub] = source.split(' › ').map((s) => s.trim());
  const at = headings.findIndex((h) => h.depth === 2 && h.title === top);
  if (at < 0) return false;
  if (sub === undefined) return true;
  const next = headings.findIndex((h, i) => i > at && h.depth === 2);
  return headings
    .slice(at + 1, next < 0 ? undefined : next)
    .some((h) => h.title === sub || h.title.startsWith(`${sub} `) || h.title === sub.replace(/ \(.*\)$/, ''));
}

const isRfc = (source: string) => /^RFC \d{4}/.test(source) || /^draft-ietf-/.test(source);
const isDecision = (source: string) => /x-decision|^decision|spec\/openapi\.yaml/.test(source);

/** The parts of a `section` ("A › B; RFC 9110 §15.6; x-decision"), each classified. */
function sources(section: string): Array<{ text: string; kind: 'specification' | 'rfc' | 'decision' | 'declaration' | 'generated' | 'unknown' }> {
  return section.split(';').map((part) => {
    const text = part.trim().replace(/ \(Dredd 14 over the description\)$/, '');
    if (isRfc(text)) return { text, kind: 'rfc' };
    if (isDecision(text)) return { text, kind: 'decision' };
    // What the person running the kit declared: a choice at an open point, or the slowest answer they accept.
    if (/declaration \((--choice|--max-response-time)\)/.test(text)) return { text, kind: 'declaration' };
    if (/^generated from spec\/openapi\.yaml$/.test(text)) return { text, kind: 'generated' };
    return { text, kind: isSection(text) ? 'specification' : 'unknown' };
  });
}

test('every check names sources that exist: sections of the specification, RFCs, or x-decision', () => {
  for (const check of CATALOGUE) {
    for (const s of sources(check.section))
      assert.ok(s.kind !== 'unknown', `${check.id}: "${s.text}" is no section of spec/specification.md, no RFC and no decision`);
  }
});

test("a must check has a source in the specification, an RFC, or the implementer's own declaration: never only a decision", () => {
  for (const check of CATALOGUE.filter((c) => c.level === 'must')) {
    const kinds = sources(check.section).map((s) => s.kind);
    assert.ok(
      kinds.some((k) => k === 'specification' || k === 'rfc' || k === 'declaration'),
      `${check.id} is must, yet its sources are ${kinds.join(', ')}`,
    );
  }
});

test('the open points name only checks that exist, and none names a must check for a decision of the reference server', () => {
  for (const point of OPEN_POINTS) {
    for (const [, id] of point.kit.matchAll(/`([a-z]+\.[a-z0-9-]+)`/g)) {
      const check = CATALOGUE.find((c) => c.id === id);
      assert.ok(check, `${point.id} names ${id}, which is no check`);
      if (sources(check!.section).every((s) => s.kind === 'decision')) assert.is(check!.level, 'should', `${point.id}: ${id}`);
    }
  }
});

test("every shared rule names its source, and a must rule's is the specification or an RFC", () => {
  for (const [kind, rule] of Object.entries(RULES) as Array<[string, { level: string; source: string }]>) {
    const [s] = sources(rule.source);
    assert.ok(s && s.kind !== 'unknown', `${kind}: "${rule.source}"`);
    if (rule.level === 'must') assert.ok(s!.kind === 'specification' || s!.kind === 'rfc', `${kind} is must, yet comes from ${rule.source}`);
  }
});

test('the classifier refuses what it should: a made-up section, a decision-only must', () => {
  assert.is(sources('Limits › Nowhere')[0]!.kind, 'unknown');
  assert.is(sources('spec/openapi.yaml x-decision')[0]!.kind, 'decision');
  assert.is(sources('Endpoints › List animals')[0]!.kind, 'specification');
  assert.is(sources("the user's declaration (--max-response-time) of the slowest answer they accept")[0]!.kind, 'declaration');
  assert.is(sources('--max-response-time')[0]!.kind, 'unknown');
});

test.run();

/**
 * Plain lines (`src/plainLines.ts`) are read without `JSON.parse`, so the shortcut must agree with
 * it exactly: on every line `entityLine`/`relationLine` write, and on any line near one (one
 * character inserted, removed or replaced), a line the shortcut accepts parses to the same fields.
 * A graph keeps such lines and writes them back as they are, until a change rewrites the entity.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Entity, Graph, type Relation } from '../src/graph.js';
import { plainEntity, plainObservations, plainRelation } from '../src/plainLines.js';
import { entityLine, parseGraphFile, relationLine } from '../src/store/jsonl.js';
import { graphSink, snapshotChunks } from '../src/store/snapshot.js';

/** Characters JSON escapes (quote, backslash, controls, a lone surrogate) among ordinary ones and the format's own. */
const unit = fc.constantFrom(
  'a',
  'Z',
  ' ',
  'é',
  '😀',
  '\u2028',
  '\u007f',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\ud800',
  ',',
  ':',
  '[',
  ']',
  '{',
  '}',
  '","',
);
const text = fc.string({ unit, maxLength: 8 });
const entity: fc.Arbitrary<Entity> = fc.record({ name: text, entityType: text, observations: fc.array(text, { maxLength: 4 }) });
const relation: fc.Arbitrary<Relation> = fc.record({ from: text, to: text, relationType: text });

/** Whether JSON writes `s` as it is (nothing escaped). */
const writtenAsIs = (s: string) => JSON.stringify(s) === `"${s}"`;

/** `line` with one character inserted, removed or replaced. */
const edited = (line: string) =>
  fc
    .tuple(fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.constantFrom('"', '\\', ' ', ',', ']', '}', '[', 'x', '\t', ':'))
    .map(([at, how, ch]) => {
      const i = at % (line.length + 1);
      if (how === 'insert') return line.slice(0, i) + ch + line.slice(i);
      if (how === 'remove') return line.slice(0, i) + line.slice(i + 1);
      return line.slice(0, i) + ch + line.slice(i + 1);
    });

/** If the shortcut accepts `line`, JSON.parse reads the same entity (and exactly the reference's four keys). */
function agreesOnEntity(line: string): void {
  const plain = plainEntity(line);
  if (!plain) return;
  const parsed = JSON.parse(line) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(['type', 'name', 'entityType', 'observations']);
  expect(parsed).toEqual({ type: 'entity', name: plain.name, entityType: plain.entityType, observations: plainObservations(line) });
}

function agreesOnRelation(line: string): void {
  const plain = plainRelation(line);
  if (!plain) return;
  const parsed = JSON.parse(line) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(['type', 'from', 'to', 'relationType']);
  expect(parsed).toEqual({ type: 'relation', ...plain });
}

describe('plain lines', () => {
  it('every entity line written with nothing escaped is plain, gives its fields back, and is what entityLine writes', () => {
    fc.assert(
      fc.property(entity, (e) => {
        const line = entityLine(e);
        const plain = plainEntity(line);
        const asIs = [e.name, e.entityType, ...e.observations].every(writtenAsIs);
        expect(plain !== null).toBe(asIs);
        if (!plain) return;
        expect(plain).toEqual({ name: e.name, entityType: e.entityType });
        expect(plainObservations(line)).toEqual(e.observations);
        expect(entityLine({ ...plain, observations: plainObservations(line) })).toBe(line);
        expect(plainRelation(line)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('every relation line written with nothing escaped is plain and gives its fields back', () => {
    fc.assert(
      fc.property(relation, (r) => {
        const line = relationLine(r);
        const plain = plainRelation(line);
        expect(plain !== null).toBe([r.from, r.to, r.relationType].every(writtenAsIs));
        if (plain) expect(plain).toEqual(r);
        expect(plainEntity(line)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('a line one edit away from a written one is plain only if JSON.parse reads the same record from it', () => {
    fc.assert(
      fc.property(
        entity.chain((e) => edited(entityLine(e))),
        relation.chain((r) => edited(relationLine(r))),
        (entityEdit, relationEdit) => {
          for (const line of [entityEdit, relationEdit]) {
            agreesOnEntity(line);
            agreesOnRelation(line);
          }
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('a graph read from a file writes the same file back, and after changes the lines of its current state', () => {
    const written = (graph: Graph) => [...snapshotChunks([], graph)].join('');
    const fromScratch = (graph: Graph) =>
      [...[...graph.entityList()].map(entityLine), ...[...graph.relationList()].map(relationLine)].join('\n');
    fc.assert(
      fc.property(
        fc.array(entity, { maxLength: 12 }),
        fc.array(relation, { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), text, fc.boolean()), { maxLength: 4 }),
        (entities, relations, changes) => {
          const file = [...entities.map(entityLine), ...relations.map(relationLine)].join('\n');
          const graph = new Graph();
          parseGraphFile(file, graphSink(graph));
          expect(written(graph)).toBe(file);
          for (const [pick, o, add] of changes) {
            const e = entities[pick % Math.max(1, entities.length)];
            if (!e) break;
            if (add) graph.addObservations([{ entityName: e.name, contents: [o] }]);
            else graph.deleteObservations([{ entityName: e.name, observations: [e.observations[0] ?? o] }]);
          }
          expect(written(graph)).toBe(fromScratch(graph));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('edge cases: no observations, empty strings, a separator-like observation, other layouts', () => {
    expect(plainObservations('{"type":"entity","name":"a","entityType":"t","observations":[]}')).toEqual([]);
    expect(plainObservations('{"type":"entity","name":"","entityType":"","observations":["",""]}')).toEqual(['', '']);
    expect(plainObservations('{"type":"entity","name":"a","entityType":"t","observations":[",",":"]}')).toEqual([',', ':']);
    for (const line of [
      '{"type":"entity","name":"a","entityType":"t"}',
      '{"type":"entity","name":"a","entityType":"t","observations":null}',
      '{"type": "entity","name":"a","entityType":"t","observations":[]}',
      '{"name":"a","type":"entity","entityType":"t","observations":[]}',
      '{"type":"entity","name":"a","entityType":"t","observations":[],"x":1}',
      '{"type":"entity","name":"a\\u0041","entityType":"t","observations":[]}',
    ]) {
      expect(plainEntity(line), line).toBeNull();
    }
  });
});

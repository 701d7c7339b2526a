/**
 * The indexed search answers exactly what the reference's plain scan answers: same entities, same
 * relations, same order, for random graphs (Unicode, case pairs that change length when lower-cased,
 * empty strings, names repeated as a reference-written file can hold) and random queries, before
 * and after random writes. Small index settings reach every path (several blocks, bitsets,
 * rebuilds after a few writes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Entity, Graph, type GraphPage, type Relation } from '../src/graph.js';
import { BasePostings } from '../src/search/postings.js';
import type { SearchIndexOptions } from '../src/search/searchIndex.js';
import { bucketOf } from '../src/search/trigrams.js';
import { entityLine, parseGraphFile, relationLine } from '../src/store/jsonl.js';
import { graphSink } from '../src/store/snapshot.js';

/** Characters whose lower case is tricky: longer ('İ'), context-dependent ('Σ'), astral, the separator. */
const unit = fc.constantFrom(
  'a',
  'b',
  'c',
  'A',
  'B',
  'C',
  ' ',
  '-',
  'İ',
  'i',
  'I',
  'ı',
  '\u0307',
  'ß',
  'ẞ',
  'Σ',
  'σ',
  'ς',
  'é',
  'É',
  '😀',
  '\u0000',
  '1',
);
const text = fc.string({ unit, maxLength: 12 });
const name = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'İ', 'ß'), maxLength: 3 });
const entity: fc.Arbitrary<Entity> = fc.record({ name, entityType: text, observations: fc.array(text, { maxLength: 4 }) });
const relation: fc.Arbitrary<Relation> = fc.record({ from: name, to: name, relationType: fc.constantFrom('r', 's') });

/** A query: random text, a piece of some field of the graph (maybe in another case), or the few characters around the end of one field and the start of the next (which must not match). */
function query(graph: Graph): fc.Arbitrary<string> {
  const entities = [...graph.entityList()].map((e) => [e.name, e.entityType, ...e.observations]);
  const fields = entities.flat();
  if (fields.length === 0) return fc.oneof(text, fc.string({ unit, maxLength: 2 }));
  const piece = fc
    .tuple(fc.constantFrom(...fields), fc.nat(), fc.nat(), fc.constantFrom('same', 'upper', 'lower'))
    .map(([field, a, b, cased]) => {
      const from = a % (field.length + 1);
      const part = field.slice(from, from + (b % 6));
      return cased === 'upper' ? part.toUpperCase() : cased === 'lower' ? part.toLowerCase() : part;
    });
  const across = fc
    .tuple(fc.constantFrom(...entities), fc.nat(), fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 2 }))
    .map(([fs, at, before, after]) => {
      const i = at % fs.length;
      return fs[i]!.slice(-before) + (fs[i + 1] ?? '').slice(0, after);
    });
  return fc.oneof(piece, piece, across, text, fc.string({ unit, maxLength: 2 }));
}

/** The reference's search over the same graph, spelled out. */
function plainSearch(graph: Graph, q: string): GraphPage {
  const lower = q.toLowerCase();
  const entities = [...graph.entityList()].filter(
    (e) =>
      e.name.toLowerCase().includes(lower) ||
      e.entityType.toLowerCase().includes(lower) ||
      e.observations.some((o) => o.toLowerCase().includes(lower)),
  );
  const names = new Set(entities.map((e) => e.name));
  const relations = [...graph.relationList()].filter((r) => names.has(r.from) || names.has(r.to));
  return { entities, relations, totalEntities: entities.length, totalRelations: relations.length };
}

type Write =
  | { kind: 'create'; entities: Entity[] }
  | { kind: 'deleteEntities'; names: string[] }
  | { kind: 'addObservations'; name: string; contents: string[] }
  | { kind: 'deleteObservations'; name: string; observations: string[] }
  | { kind: 'createRelations'; relations: Relation[] }
  | { kind: 'deleteRelations'; relations: Relation[] };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), entities: fc.array(entity, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('deleteEntities' as const), names: fc.array(name, { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('addObservations' as const), name, contents: fc.array(text, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('deleteObservations' as const), name, observations: fc.array(text, { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('createRelations' as const), relations: fc.array(relation, { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('deleteRelations' as const), relations: fc.array(relation, { maxLength: 2 }) }),
);

function apply(graph: Graph, w: Write, pick: number): void {
  switch (w.kind) {
    case 'create':
      graph.createEntities(w.entities);
      return;
    case 'deleteEntities': {
      // Mostly a name the graph has, so that deletions happen.
      const held = [...graph.entityList()];
      graph.deleteEntities(held.length > 0 ? [held[pick % held.length]!.name, ...w.names] : w.names);
      return;
    }
    case 'addObservations':
      try {
        graph.addObservations([{ entityName: w.name, contents: w.contents }]);
      } catch {} // unknown entity: nothing changes
      return;
    case 'deleteObservations': {
      // Mostly observations the entity has, so that deletions happen.
      const held = graph.open([w.name]).entities[0];
      const observations =
        held && 'observations' in held && held.observations.length > 0 ? [held.observations[pick % held.observations.length]!] : [];
      graph.deleteObservations([{ entityName: w.name, observations: [...observations, ...w.observations] }]);
      return;
    }
    case 'createRelations':
      graph.createRelations(w.relations);
      return;
    case 'deleteRelations':
      graph.deleteRelations(w.relations);
  }
}

function load(entities: Entity[], relations: Relation[], options: SearchIndexOptions): Graph {
  const graph = new Graph(options);
  // Read from a file as a reference-written one can be: repeated names and relations are all kept,
  // and entities come from plain lines (observations kept in the line) and from escaped ones.
  const file = [...entities.map(entityLine), ...relations.map(relationLine)].join('\n');
  parseGraphFile(file, graphSink(graph));
  return graph;
}

const settings: [string, SearchIndexOptions][] = [
  ['defaults', {}],
  [
    'tiny blocks, bitsets, rebuilds after a few writes',
    { blockBits: 1, minDenseEntities: 1, minStaleEntities: 3, minStalePostings: 8, minHoles: 1 },
  ],
];

describe.each(settings)('indexed search equals a plain substring scan (%s)', (_label, options) => {
  it('on random graphs and queries', () => {
    fc.assert(
      fc.property(
        fc.array(entity, { maxLength: 25 }),
        fc.array(relation, { maxLength: 10 }),
        fc.array(fc.string({ unit, maxLength: 6 }), { maxLength: 1 }),
        (entities, relations, [extra]) => {
          const graph = load(entities, relations, options);
          const queries = fc.sample(query(graph), { numRuns: 12, seed: entities.length });
          for (const q of [...queries, extra ?? '', '', 'İ', 'i̇', 'ß', 'SS', 'σ', 'ς']) {
            expect(graph.search(q), JSON.stringify(q)).toEqual(plainSearch(graph, q));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('after random writes between searches', () => {
    fc.assert(
      fc.property(
        fc.array(entity, { maxLength: 20 }),
        fc.array(relation, { maxLength: 8 }),
        fc.array(fc.tuple(write, fc.nat(), fc.nat()), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 3 }),
        (entities, relations, writes, every) => {
          const graph = load(entities, relations, options);
          graph.search('a'); // the index is built on the first search; the writes below go to it
          for (const [k, [w, pick, seed]] of writes.entries()) {
            apply(graph, w, pick);
            // Searching after every write, or after two or three: entities created and then changed
            // before the index has seen them, too.
            if ((k + 1) % every !== 0 && k !== writes.length - 1) continue;
            for (const q of fc.sample(query(graph), { numRuns: 3, seed })) {
              expect(graph.search(q), JSON.stringify(q)).toEqual(plainSearch(graph, q));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('search index', () => {
  it('pages and relations follow the matched entities, in file order', () => {
    const graph = load(
      [
        { name: 'x', entityType: 'T', observations: ['Hello World'] },
        { name: 'y', entityType: 't', observations: [] },
        { name: 'x', entityType: 'dup', observations: ['world'] },
      ],
      [
        { from: 'y', to: 'x', relationType: 'r' },
        { from: 'z', to: 'z', relationType: 'r' },
      ],
      {},
    );
    expect(graph.search('WORLD')).toEqual({
      entities: [
        { name: 'x', entityType: 'T', observations: ['Hello World'] },
        { name: 'x', entityType: 'dup', observations: ['world'] },
      ],
      relations: [{ from: 'y', to: 'x', relationType: 'r' }],
      totalEntities: 2,
      totalRelations: 1,
    });
    expect(graph.search('o w', { limit: 1, namesOnly: true })).toEqual({
      entities: [{ name: 'x', entityType: 'T' }],
      relations: [],
      totalEntities: 1,
      totalRelations: 1,
      nextOffset: 1,
    });
  });

  it('finds text added after the index was built, and forgets text deleted after it', () => {
    const graph = new Graph();
    graph.createEntities([{ name: 'a', entityType: 'person', observations: ['likes tea'] }]);
    expect(graph.search('tea').entities).toHaveLength(1);
    graph.addObservations([{ entityName: 'a', contents: ['plays chess'] }]);
    graph.createEntities([{ name: 'b', entityType: 'person', observations: ['plays chess too'] }]);
    expect(graph.search('CHESS').entities.map((e) => e.name)).toEqual(['a', 'b']);
    graph.deleteObservations([{ entityName: 'a', observations: ['plays chess'] }]);
    graph.deleteEntities(['b']);
    expect(graph.search('chess').entities).toEqual([]);
    expect(graph.search('ea').entities.map((e) => e.name)).toEqual(['a']);
  });
});

describe('posting lists', () => {
  it('sparse and dense buckets hold exactly the ids whose text has the trigram', () => {
    const texts = ['abcd', 'xabc', 'zzz', 'ab\u0000c', 'abc'];
    const start = new Int32Array(texts.length);
    const end = new Int32Array(texts.length);
    let offset = 0;
    texts.forEach((t, i) => {
      start[i] = offset;
      end[i] = offset + t.length;
      offset += t.length + 1;
    });
    const text = { blocks: [texts.join('\u0000')], blockBits: 12, start, end, count: texts.length };
    for (const minDense of [1, 1000]) {
      const postings = BasePostings.build(text, 16, minDense);
      const abc = bucketOf(97, 98, 99, postings.shift);
      const ids: number[] = [];
      postings.collect(abc, ids);
      expect(ids.filter((id) => texts[id]!.includes('abc'))).toEqual([0, 1, 4]);
      expect([0, 1, 4].every((id) => postings.has(abc, id))).toBe(true);
      expect(postings.has(abc, 3)).toBe(ids.includes(3)); // "ab\0c" has no trigram "abc": only a collision could list it
      expect(postings.has(abc, 64)).toBe(false); // past the last id
    }
  });
});

/**
 * The graph's relations against a plain array model of the same semantics: relations are found by
 * their endpoints (no key strings), so equal relations, self-relations, hubs and relations loaded
 * twice from a reference-written file must all behave as a list scan would.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Graph, type Relation } from '../src/graph.js';
import { entityLine } from '../src/store/jsonl.js';

const node = fc.constantFrom('a', 'b', 'c', 'hub');
const relation: fc.Arbitrary<Relation> = fc.record({ from: node, to: node, relationType: fc.constantFrom('r', 's') });
const same = (a: Relation, b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;

type Op =
  | { kind: 'create'; relations: Relation[] }
  | { kind: 'delete'; relations: Relation[] }
  | { kind: 'deleteEntities'; names: string[] };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), relations: fc.array(relation, { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('delete' as const), relations: fc.array(relation, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('deleteEntities' as const), names: fc.array(node, { maxLength: 1 }) }),
);

/**
 * Applies `o` to the graph and to the list model, checking the graph's answer against the model's;
 * returns the new model. A deletion's journal records must name exactly the relations that were there.
 */
function applyOp(graph: Graph, model: Relation[], o: Op): Relation[] {
  if (o.kind === 'create') {
    const created: Relation[] = [];
    for (const r of o.relations) {
      if (model.some((m) => same(m, r))) continue;
      model = [...model, r];
      created.push(r);
    }
    expect(graph.createRelations(o.relations).value).toEqual(created);
    return model;
  }
  if (o.kind === 'delete') {
    const removed = o.relations.filter((r) => {
      const found = model.some((m) => same(m, r));
      model = model.filter((m) => !same(m, r));
      return found;
    });
    expect(graph.deleteRelations(o.relations).records).toEqual(removed.length ? [{ op: 'deleteRelations', relations: removed }] : []);
    return model;
  }
  graph.deleteEntities(o.names);
  return model.filter((m) => !o.names.includes(m.from) && !o.names.includes(m.to));
}

describe('Graph relations', () => {
  it('create, delete and entity deletion behave as a list scan, duplicates from a file included', () => {
    fc.assert(
      fc.property(fc.array(relation, { maxLength: 12 }), fc.array(op, { maxLength: 20 }), (loaded, ops) => {
        const graph = new Graph();
        for (const name of ['a', 'b', 'c', 'hub']) graph.loadEntity({ name, entityType: 't', observations: [] });
        for (const r of loaded) graph.loadRelation(r);
        let model = [...loaded];
        for (const o of ops) {
          model = applyOp(graph, model, o);
          expect(graph.read().relations).toEqual(model);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('relations loaded before, after or without their entity (from plain lines or not), and loads after changes, behave as a list scan', () => {
    type Step = { kind: 'entity'; name: string } | { kind: 'relation'; relation: Relation };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('entity' as const), name: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('relation' as const), relation }),
      fc.record({ kind: fc.constant('relation' as const), relation }),
    );
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 16 }),
        fc.boolean(),
        fc.array(op, { maxLength: 6 }),
        fc.array(step, { maxLength: 8 }),
        fc.array(op, { maxLength: 6 }),
        (first, plain, ops, second, moreOps) => {
          const graph = new Graph();
          let model: Relation[] = [];
          const entities = new Set<string>();
          const load = (steps: Step[]) => {
            for (const s of steps) {
              if (s.kind === 'entity') {
                const entity = { name: s.name, entityType: 't', observations: [] };
                if (plain) graph.loadPlainEntity(entity.name, entity.entityType, entityLine(entity));
                else graph.loadEntity(entity);
                entities.add(s.name);
              } else {
                graph.loadRelation({ ...s.relation });
                model.push(s.relation);
              }
            }
          };
          const check = () => {
            expect(graph.read().relations).toEqual(model);
            for (const name of ['a', 'b', 'c', 'hub']) {
              const touching = entities.has(name) ? model.filter((m) => m.from === name || m.to === name) : [];
              expect(graph.open([name]).relations).toEqual(touching);
            }
          };
          const run = (o: Op) => {
            model = applyOp(graph, model, o);
            if (o.kind === 'deleteEntities') for (const n of o.names) entities.delete(n);
            check();
          };
          load(first);
          check();
          for (const o of ops) run(o);
          load(second);
          check();
          for (const o of moreOps) run(o);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds an existing relation from either end of a hub', () => {
    const graph = new Graph();
    for (let i = 0; i < 500; i++) graph.loadRelation({ from: `n${i}`, to: 'hub', relationType: 'r' });
    expect(graph.createRelations([{ from: 'n7', to: 'hub', relationType: 'r' }]).changed).toBe(false);
    expect(graph.createRelations([{ from: 'hub', to: 'n7', relationType: 'r' }]).changed).toBe(true);
    graph.deleteRelations([{ from: 'n7', to: 'hub', relationType: 'r' }]);
    const relations = graph.read().relations;
    expect(relations).toHaveLength(500);
    expect(relations.filter((r) => r.from === 'n7' || r.to === 'n7')).toEqual([{ from: 'hub', to: 'n7', relationType: 'r' }]);
  });
});

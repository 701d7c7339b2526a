/**
 * The knowledge graph the memory benchmarks load: `n` entities (`entity-<i>`, 20 types, 3
 * observations each, among them `observation <i>-a …`) and `n` relations (`entity-<i>` works_with
 * `entity-<i+1>`, a ring), as the JSONL file the memory servers read (`MEMORY_FILE_PATH`).
 */
export function graphFile(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        type: 'entity',
        name: `entity-${i}`,
        entityType: `type-${i % 20}`,
        observations: [
          `observation ${i}-a about the project schedule`,
          `observation ${i}-b: prefers short answers`,
          `observation ${i}-c met on day ${i % 365}`,
        ],
      }),
    );
  }
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ type: 'relation', from: `entity-${i}`, to: `entity-${(i + 1) % n}`, relationType: 'works_with' }));
  }
  return lines.join('\n');
}

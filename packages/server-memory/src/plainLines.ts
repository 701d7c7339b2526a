/**
 * Plain lines: entity and relation lines of a memory file in exactly the form `entityLine` and
 * `relationLine` write them (the reference's keys, in its order, no spaces) whose strings hold no
 * character JSON escapes (`"`, `\`, U+0000–U+001F). Nearly every line of a real file is plain.
 *
 * For a plain line, `JSON.parse` gives exactly the strings between the quotes, and `entityLine` of
 * the parsed entity gives the line back byte for byte. So a plain line can be read without
 * `JSON.parse`, and an entity's observations can stay in its line until something needs them:
 * loading a large file then keeps one string per entity instead of an object, an array and one
 * string per observation (less to allocate, and much less for the garbage collector to move).
 *
 * Any other line (escapes, other key order, spaces, extra or missing fields) is not plain and goes
 * through `JSON.parse` as before. (The text comes from a UTF-8 decoder, so it holds no lone
 * surrogate, the one other thing `JSON.stringify` escapes.)
 */

/** A JSON string's contents with nothing escaped. */
const S = '[^"\\\\\\u0000-\\u001f]*';

const ENTITY = new RegExp(`^\\{"type":"entity","name":"${S}","entityType":"${S}","observations":\\[(?:"${S}"(?:,"${S}")*)?\\]\\}$`);
const RELATION = new RegExp(`^\\{"type":"relation","from":"(${S})","to":"(${S})","relationType":"(${S})"\\}$`);

const NAME_AT = '{"type":"entity","name":"'.length;
const TYPE_AFTER_NAME = '","entityType":"'.length;
const OBSERVATIONS_AFTER_TYPE = '","observations":['.length;

/** The name and entity type of a plain entity line, or null when the line is not one. */
export function plainEntity(line: string): { name: string; entityType: string } | null {
  // 101 = 'e' of "entity" (and not 'r' of "relation"): skips the regular expression for relations.
  if (line.charCodeAt(9) !== 101 || !ENTITY.test(line)) return null;
  const nameEnd = line.indexOf('"', NAME_AT);
  const typeAt = nameEnd + TYPE_AFTER_NAME;
  return { name: line.slice(NAME_AT, nameEnd), entityType: line.slice(typeAt, line.indexOf('"', typeAt)) };
}

/** The observations of a plain entity line (a new array each time). */
export function plainObservations(line: string): string[] {
  const nameEnd = line.indexOf('"', NAME_AT);
  const typeEnd = line.indexOf('"', nameEnd + TYPE_AFTER_NAME);
  // Between `[` and `]}`: `"a","b"` (no string holds a quote, so `","` only ever separates two).
  const list = line.slice(typeEnd + OBSERVATIONS_AFTER_TYPE, -2);
  return list === '' ? [] : list.slice(1, -1).split('","');
}

/** The fields of a plain relation line, or null when the line is not one. */
export function plainRelation(line: string): { from: string; to: string; relationType: string } | null {
  if (line.charCodeAt(9) !== 114) return null; // 'r' of "relation"
  const m = RELATION.exec(line);
  return m ? { from: m[1]!, to: m[2]!, relationType: m[3]! } : null;
}

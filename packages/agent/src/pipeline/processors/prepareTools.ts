/** Step 1: the tools offered this step (none on the final call), deferred behind `tool_search` when they are too many. */
import type { ToolOffer } from '../../tools/offer.js';
import type { ToolSpec } from '../../types.js';

export function prepareTools(offer: ToolOffer, final: boolean): ToolSpec[] {
  return final ? [] : offer.next().tools;
}

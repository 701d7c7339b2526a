/** Text mode: tool calling for models without native function calling (format: `docs/text-mode.md`). */
export { toTextModeMessages } from './messages.js';
export { createTextModeParser, type ParsedCall, type TextModeParser, type TextModeParserOptions } from './parser.js';
export { renderToolCatalogue } from './prompt.js';

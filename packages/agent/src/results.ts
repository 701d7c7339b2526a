/**
 * Tool results as the model reads them: an MCP `CallToolResult` (text, images, resources,
 * structured content) flattened to text, capped in size with a note saying so.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';

/** Default cap on one tool result sent to the model (characters). */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown to the model]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, binary, not shown to the model]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** The text of a tool result: its content blocks, or its structured content when it has no text. */
export function toolResultText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.map(describeBlock);
  const hasText = content.some((block) => block.type === 'text' && block.text.length > 0);
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}

/** Cut `text` to `maxChars`, saying so, so the model knows it saw only part of the result. */
export function capText(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  // Never cut a surrogate pair in half.
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return {
    text: `${text.slice(0, end)}\n[result cut: ${text.length} characters, the first ${end} shown]`,
    cut: true,
  };
}

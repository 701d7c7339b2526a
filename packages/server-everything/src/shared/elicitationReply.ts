import type { ElicitResult } from '@modelcontextprotocol/server';

/**
 * The text both reference versions return for their form elicitation (`startElicitation`,
 * `trigger-elicitation-request`): a verdict per action, the fields the user gave (the legacy form's `color` and
 * `petType` included, as the current reference still does), then the raw result.
 */
export function elicitationReply(result: ElicitResult): { type: 'text'; text: string }[] {
  const content: { type: 'text'; text: string }[] = [];
  if (result.action === 'accept' && result.content) {
    content.push({ type: 'text', text: '✅ User provided the requested information!' });
    const data = result.content;
    const lines: string[] = [];
    if (data.name) lines.push(`- Name: ${data.name}`);
    if (data.check !== undefined) lines.push(`- Agreed to terms: ${data.check}`);
    if (data.color) lines.push(`- Favorite Color: ${data.color}`);
    if (data.email) lines.push(`- Email: ${data.email}`);
    if (data.homepage) lines.push(`- Homepage: ${data.homepage}`);
    if (data.birthdate) lines.push(`- Birthdate: ${data.birthdate}`);
    if (data.integer !== undefined) lines.push(`- Favorite Integer: ${data.integer}`);
    if (data.number !== undefined) lines.push(`- Favorite Number: ${data.number}`);
    if (data.petType) lines.push(`- Pet Type: ${data.petType}`);
    content.push({ type: 'text', text: `User inputs:\n${lines.join('\n')}` });
  } else if (result.action === 'decline') {
    content.push({ type: 'text', text: '❌ User declined to provide the requested information.' });
  } else if (result.action === 'cancel') {
    content.push({ type: 'text', text: '⚠️ User cancelled the elicitation dialog.' });
  }
  content.push({ type: 'text', text: `\nRaw result: ${JSON.stringify(result, null, 2)}` });
  return content;
}

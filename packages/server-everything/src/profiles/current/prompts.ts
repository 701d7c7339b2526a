import { type AnyPromptDefinition, definePrompt } from '@mcpkit/protocol-core';
import { completable } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { dynamicResource, resourceIdForPromptCompleter, resourceTypeCompleter } from './resources/templates.js';
import type { CurrentSession } from './session.js';

const simplePrompt = definePrompt({
  name: 'simple-prompt',
  title: 'Simple Prompt',
  description: 'A prompt with no arguments',
  args: {},
  handler: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }] }),
});

const argsPrompt = definePrompt({
  name: 'args-prompt',
  title: 'Arguments Prompt',
  description: 'A prompt with two arguments, one required and one optional',
  // `.describe()` before `.optional()`: zod 4 then drops the description of `state`, as on the reference's wire.
  args: { city: z.string().describe('Name of the city'), state: z.string().describe('Name of the state').optional() },
  handler: ({ city, state }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `What's weather in ${city}${state ? `, ${state}` : ''}?` } }],
  }),
});

const TEAMS: Record<string, readonly string[]> = {
  Engineering: ['Alice', 'Bob', 'Charlie'],
  Sales: ['David', 'Eve', 'Frank'],
  Marketing: ['Grace', 'Henry', 'Iris'],
  Support: ['John', 'Kim', 'Lee'],
};

const completablePrompt = definePrompt({
  name: 'completable-prompt',
  title: 'Team Management',
  description: 'First argument choice narrows values for second argument.',
  args: {
    department: completable(z.string().describe('Choose the department.'), (value) =>
      ['Engineering', 'Sales', 'Marketing', 'Support'].filter((d) => d.startsWith(value)),
    ),
    name: completable(z.string().describe('Choose a team member to lead the selected department.'), (value, context) => {
      const department = context?.arguments?.department;
      const members = department !== undefined && Object.hasOwn(TEAMS, department) ? TEAMS[department]! : [];
      return members.filter((n) => n.startsWith(value));
    }),
  },
  handler: ({ department, name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please promote ${name} to the head of the ${department} team.` } }],
  }),
});

const resourcePrompt = definePrompt({
  name: 'resource-prompt',
  title: 'Resource Prompt',
  description: 'A prompt that includes an embedded resource reference',
  args: { resourceType: resourceTypeCompleter, resourceId: resourceIdForPromptCompleter },
  handler: ({ resourceType, resourceId }) => {
    const resource = dynamicResource(resourceType, resourceId);
    return {
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `This prompt includes the ${resourceType} resource with id: ${Number(resourceId)}. Please analyze the following resource:`,
          },
        },
        { role: 'user', content: { type: 'resource', resource } },
      ],
    };
  },
});

/** In `prompts/list` order. */
export const prompts: ReadonlyArray<AnyPromptDefinition<CurrentSession>> = [simplePrompt, argsPrompt, completablePrompt, resourcePrompt];

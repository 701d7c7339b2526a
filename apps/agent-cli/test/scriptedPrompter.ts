import type { Prompter } from '../src/terminal/prompter.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
export const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A prompter that answers from a script; `null` in the script (or running out) is end of input. */
export function scripted(answers: Array<string | null>) {
  const queue = [...answers];
  const prompts: string[] = [];
  let output = '';
  const prompter: Prompter = {
    async question(prompt) {
      prompts.push(prompt);
      output += prompt;
      const answer = queue.length > 0 ? queue.shift() : null;
      return answer ?? null;
    },
    write(text) {
      output += text;
    },
    close() {},
  };
  return { prompter, prompts, output: () => output, remaining: () => queue.length };
}

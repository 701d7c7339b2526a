/** Model providers. One file per wire format; each turns its replies into `ChatEvent`s. */
export { createOpenAIClient, type OpenAIClientOptions } from './openai.js';
export { sanitizeToolSchema } from './sanitizeSchema.js';

import type { z } from 'zod';

/** A tool's arguments as its handler receives them (defaults applied), from its input shape. */
export type ToolArgs<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

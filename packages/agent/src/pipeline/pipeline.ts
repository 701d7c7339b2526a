/**
 * The seed's `ToolCallPipeline`: processors run in order over one context, each doing one step of a
 * tool round. A processor can end the run (`context.done`); the last one (recursion) starts the
 * next round by running the pipeline again, at most `maxSteps` times.
 */
import type { ToolCallContext } from './context.js';

export interface ToolCallProcessor {
  readonly name: string;
  process(context: ToolCallContext): Promise<ToolCallContext>;
}

export class ToolCallPipeline {
  private readonly processors: ToolCallProcessor[] = [];

  static create(): ToolCallPipeline {
    return new ToolCallPipeline();
  }

  addProcessor(processor: ToolCallProcessor): this {
    this.processors.push(processor);
    return this;
  }

  async execute(context: ToolCallContext): Promise<ToolCallContext> {
    let current = context;
    for (const processor of this.processors) {
      current = await processor.process(current);
      if (current.done) break;
    }
    return current;
  }
}

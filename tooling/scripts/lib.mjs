// Helpers shared by the check scripts (plain Node, no dependencies), one concern per file under lib/.
export * from './lib/base.mjs';
export * from './lib/processes.mjs';
export * from './lib/sizes.mjs';
export * from './lib/steps.mjs';
export * from './lib/workspace.mjs';

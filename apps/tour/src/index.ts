import { runTour } from './tour.js';

const result = await runTour();
process.exitCode = result.ok ? 0 : 1;

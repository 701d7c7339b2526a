import { addObservations } from './addObservations.js';
import { createEntities } from './createEntities.js';
import { createRelations } from './createRelations.js';
import { deleteEntities } from './deleteEntities.js';
import { deleteObservations } from './deleteObservations.js';
import { deleteRelations } from './deleteRelations.js';
import { openNodes } from './openNodes.js';
import { readGraph } from './readGraph.js';
import { searchNodes } from './searchNodes.js';

/** Every tool of this server, in the order `tools/list` shows them (the reference's). */
export const tools = [
  createEntities,
  createRelations,
  addObservations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  readGraph,
  searchNodes,
  openNodes,
];

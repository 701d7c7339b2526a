import type { AnyToolDefinition } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';
import { inputRequiredTools } from './inputRequired.js';
import { jsonSchema2020Tool } from './jsonSchema2020Tool.js';
import { listenDiagnosticTools } from './listenDiagnostics.js';
import { statelessDiagnosticTools } from './statelessDiagnostics.js';
import { taskTools } from './tasks.js';
import { testAudioContent } from './testAudioContent.js';
import { testElicitation } from './testElicitation.js';
import { testElicitationSep1034Defaults } from './testElicitationSep1034Defaults.js';
import { testElicitationSep1330Enums } from './testElicitationSep1330Enums.js';
import { testEmbeddedResource } from './testEmbeddedResource.js';
import { testErrorHandling } from './testErrorHandling.js';
import { testImageContent } from './testImageContent.js';
import { testMultipleContentTypes } from './testMultipleContentTypes.js';
import { testReconnection } from './testReconnection.js';
import { testSampling } from './testSampling.js';
import { testSimpleText } from './testSimpleText.js';
import { testToolWithLogging } from './testToolWithLogging.js';
import { testToolWithProgress } from './testToolWithProgress.js';

export { JSON_SCHEMA_2020_12_INPUT } from './jsonSchema2020Tool.js';

/** In `tools/list` order (the suite's fixture's, `json_schema_2020_12_tool`, the 2026-07-28 diagnostics, then the tasks fixtures). */
export const tools: ReadonlyArray<AnyToolDefinition<ConformanceSession>> = [
  testSimpleText,
  testImageContent,
  testAudioContent,
  testEmbeddedResource,
  testMultipleContentTypes,
  testToolWithLogging,
  testToolWithProgress,
  testErrorHandling,
  testReconnection,
  testSampling,
  testElicitation,
  testElicitationSep1034Defaults,
  testElicitationSep1330Enums,
  jsonSchema2020Tool,
  ...inputRequiredTools,
  ...statelessDiagnosticTools,
  ...listenDiagnosticTools,
  ...taskTools,
];

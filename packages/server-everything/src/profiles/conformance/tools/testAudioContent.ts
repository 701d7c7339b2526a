import { defineTool } from '@mcpkit/protocol-core';
import { BEEP_WAV } from '../media.js';
import { FIXED_RESULT } from './fixed.js';

/** Scenario `tools-call-audio`. */
export const testAudioContent = defineTool({
  name: 'test_audio_content',
  title: 'Audio Content',
  description: 'Tests audio content response (20 ms of a 440 Hz beep, WAV)',
  input: {},
  annotations: FIXED_RESULT,
  handler: () => ({ content: [{ type: 'audio', data: BEEP_WAV, mimeType: 'audio/wav' }] }),
});

/**
 * The media the fixtures return, built for the purpose and small (the suite asks for "a minimal test
 * image" and "a minimal test audio file"); `test/conformance` decodes both and checks their headers.
 */

/** A 1×1 red PNG (8-bit RGB, 69 bytes), base64. */
export const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** 20 ms of a 440 Hz sine as a WAV file (PCM, 8 kHz, 8-bit unsigned, mono; 204 bytes), base64. */
export const BEEP_WAV = [
  'UklGRsQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YaAAAACAlqm3v7+4qpiCbFlKQkFHVGd8kqa1vsC6rZuGcFxMQ0BFUWN4',
  'jqKzvcC8sJ+KdF9PREBET190ip+wvMC9s6KOeGNRRUBDTFxwhputusC+taaSfGdUR0FCSllsgpiquL+/t6mWgGpXSUFBSFZofpSntr6/uayZ',
  'hG5aS0JARlNlepCktL3Au6+diHJeTUNARFBhdoyhsbzAvLGhjHZhUERA',
].join('');

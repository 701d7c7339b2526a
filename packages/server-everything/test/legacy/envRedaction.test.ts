/**
 * `printEnv` redacts well-known credential formats whatever the variable is called (issue 22 item 11): each
 * format through the real SDK client, under a name that says nothing (so only the value can give it away), and
 * ordinary values, close to those formats, left alone.
 */
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { SECRET_VALUE_FORMATS } from '../../src/shared/envSecrets.js';
import { quiet } from './helpers.js';

/** What `printEnv` shows for `env`, parsed. */
async function printEnv(env: Record<string, string>): Promise<Record<string, string>> {
  await using pair = await connectInMemory(createLegacyServer({ ...quiet, env }));
  const result = (await pair.client.callTool({ name: 'printEnv', arguments: {} })) as { content: { text: string }[] };
  return JSON.parse(result.content[0]!.text);
}

const pem = (label: string) =>
  `-----BEGIN ${label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n-----END ${label}-----\n`;

/** A value of each format, with a variable name that is not secret-looking. */
const SECRETS: [format: string, value: string][] = [
  ['Stripe live secret key', 'sk_live_51HqLyjWDarjtT1zdp7dc0123'],
  ['Stripe live restricted key', 'rk_live_51HqLyjWDarjtT1zdp7dc0123'],
  ['Stripe test secret key', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'],
  ['Stripe test restricted key', 'rk_test_4eC39HqLyjWDarjtT1zdp7dc'],
  ['SendGrid API key', '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'],
  ['PEM private key (PKCS#8, multi-line)', pem('PRIVATE KEY')],
  ['PEM RSA private key after other lines', `Bag Attributes\n  friendlyName: srv\n${pem('RSA PRIVATE KEY')}`],
  ['PEM EC private key', pem('EC PRIVATE KEY')],
  ['PEM OpenSSH private key', pem('OPENSSH PRIVATE KEY')],
  ['PEM encrypted private key', pem('ENCRYPTED PRIVATE KEY')],
  ['PEM private key with escaped newlines', '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----'],
  ['Slack webhook URL', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
  ['Slack workflow webhook URL', 'https://hooks.slack.com/workflows/T0000/A0000/123456/abcdef'],
  ['token= in a query string', 'https://api.example.com/v1/feed?format=json&token=abc123'],
  ['key= in a query string', 'https://maps.example.com/api/js?key=abcdef&callback=init'],
  ['access_token= in a query string', 'https://graph.example.com/me?access_token=EAAB1234'],
  ['api_key= in a query string', 'https://example.com/data?api_key=0123456789'],
  ['apikey= in a query string', 'https://example.com/data?APIKEY=0123456789'],
  ['secret= in a query string', 'https://example.com/cb?client_id=1&client_secret=s3cr3t'],
  ['password= in a query string', 'mongodb://db.internal/app?authSource=admin&password=hunter2'],
  ['sig= in a query string (SAS URL)', 'https://acct.blob.core.windows.net/c/b?sv=2021-08-06&se=2030-01-01&sp=r&sig=AbC%2Bd%3D'],
  ['X-Amz-Signature= in a query string', 'https://b.s3.amazonaws.com/k?X-Amz-Credential=AK%2F&X-Amz-Signature=0a1b2c'],
];

/** Ordinary values, some close to the formats above: left as they are. */
const ORDINARY: [what: string, value: string][] = [
  ['a plain URL with a query', 'https://example.com/search?q=api+key&page=2&sort=asc'],
  ['query parameters whose names only contain a secret word', 'https://example.com/?monkey=1&keyboard=us&author=ann&tokens_per_page=5'],
  ['an empty credential parameter', 'https://example.com/?token=&key='],
  ['a Stripe publishable-looking word that is not a key', 'task_live_feed'],
  ['a Stripe prefix without a key', 'sk_live_'],
  ['a locale with SG', 'en_SG.UTF-8'],
  ['a dotted SG name', 'SG.region.primary'],
  ['a PEM certificate', pem('CERTIFICATE')],
  ['a PEM public key', pem('PUBLIC KEY')],
  ['the Slack API host', 'https://slack.com/api/chat.postMessage'],
  ['the Slack hooks host alone', 'https://hooks.slack.com/'],
  ['a path', '/usr/local/bin:/usr/bin:/bin'],
  ['a sentence with ampersands', 'Tom & Jerry & friends=yes'],
];

describe('printEnv redacts credential formats whatever the variable is called', () => {
  it.each(SECRETS)('%s', async (_format, value) => {
    const shown = await printEnv({ HOME: '/home/ann', SETTING: value });
    expect(shown).toEqual({ HOME: '/home/ann', SETTING: '[redacted]' });
  });

  it('leaves ordinary values alone', async () => {
    const env = Object.fromEntries(ORDINARY.map(([, value], i) => [`SETTING_${i}`, value]));
    expect(await printEnv(env)).toEqual(env);
  });

  it('every format is data with a name (listed in the README)', () => {
    for (const { name, pattern } of SECRET_VALUE_FORMATS) {
      expect(name).not.toBe('');
      expect(pattern).toBeInstanceOf(RegExp);
    }
  });
});

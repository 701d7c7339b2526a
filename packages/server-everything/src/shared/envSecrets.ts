/**
 * Redaction of secret-looking environment variables for `printEnv` (legacy) and `get-env` (current). The
 * reference prints `process.env` as it is, API keys included, to any client that asks; here a value is
 * replaced by `[redacted]` when its name or its shape says it is a secret. Over-redaction is the safe
 * side (`KEYBOARD_LAYOUT` and `XAUTHORITY` are redacted too): `showEnvSecrets` restores the reference's output.
 *
 * Exports (stable, used by every profile): `REDACTED`, `isSecretName`, `isSecretValue`, `redactEnv`, and the value
 * formats as data (`SECRET_VALUE_FORMATS`).
 */

export const REDACTED = '[redacted]';

/**
 * Substrings of a name (case-insensitive) that mark a secret wherever they occur: issue 7's `*KEY*`, `*TOKEN*`,
 * `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*AUTH*`, plus a few spellings of the same things.
 */
const SECRET_SUBSTRINGS = [
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'AUTH',
  'BEARER',
  'COOKIE',
  'PRIVATE',
  'SIGNATURE',
  'JWT',
];

/** Whole name parts (split on anything but letters and digits) that mark a secret but are too short to match inside words: `DB_PASS`, `SENTRY_DSN`, `MYSQL_PWD`. */
const SECRET_PARTS = new Set(['PASS', 'PWD', 'CREDS', 'DSN', 'SALT', 'PAT', 'OTP']);

/** Whether a variable's name says it holds a secret. `PWD` alone is the working directory, not a password. */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (SECRET_SUBSTRINGS.some((s) => upper.includes(s))) return true;
  if (upper === 'PWD' || upper === 'OLDPWD') return false;
  return upper.split(/[^A-Z0-9]+/).some((part) => SECRET_PARTS.has(part));
}

/** Before a token: the start of the value or a character that can't be part of the token. */
const START = '(?:^|[^A-Za-z0-9_-])';

/**
 * Names of URL query parameters that carry a credential (case-insensitive), alone or after a prefix ending in `_`,
 * `-` or `.` (`client_secret`, `x-amz-signature`, `hub.verify_token`): `monkey=` or `keyword=` are not one.
 */
const QUERY_SECRET_NAMES =
  'access_?token|refresh_?token|id_?token|auth_?token|token|api_?key|apikey|key|secret|password|passwd|pwd|sig|signature|credential|auth';

/**
 * Well-known credential formats, found anywhere in a value (multi-line values too): a value matching any of them is
 * redacted whatever its variable is called. Add a format here, with a test in `test/legacy/envRedaction.test.ts`.
 */
export const SECRET_VALUE_FORMATS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'GitHub token', pattern: new RegExp(`${START}(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\\w{20,})`) },
  { name: 'OpenAI / Anthropic `sk-` key', pattern: new RegExp(`${START}sk-[\\w-]{16,}`) },
  {
    name: 'Stripe secret, restricted or publishable key (live and test)',
    pattern: new RegExp(`${START}(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`),
  },
  { name: 'SendGrid API key', pattern: new RegExp(`${START}SG\\.[\\w-]{16,}\\.[\\w-]{16,}`) },
  { name: 'Slack token', pattern: new RegExp(`${START}xox[abprs]-[\\w-]{10,}`) },
  { name: 'Slack webhook URL', pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/-]+/i },
  { name: 'AWS access key id', pattern: new RegExp(`${START}(?:AKIA|ASIA)[A-Z0-9]{16}`) },
  { name: 'Google API key or OAuth token', pattern: new RegExp(`${START}(?:AIza[\\w-]{30,}|ya29\\.[\\w-]{20,})`) },
  { name: 'GitLab token', pattern: new RegExp(`${START}glpat-[\\w-]{20,}`) },
  { name: 'npm token', pattern: new RegExp(`${START}npm_[A-Za-z0-9]{30,}`) },
  { name: 'Hugging Face token', pattern: new RegExp(`${START}hf_[A-Za-z0-9]{30,}`) },
  { name: 'JWT', pattern: new RegExp(`${START}eyJ[\\w-]{10,}\\.[\\w-]{10,}\\.[\\w-]*`) },
  { name: 'PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  {
    name: 'credential in a URL query string (`token=`, `key=`, `access_token=`, `api_key=`, `secret=`, `password=`, `sig=` …)',
    pattern: new RegExp(`[?&](?:[\\w.-]*[_.-])?(?:${QUERY_SECRET_NAMES})=[^&#\\s]`, 'i'),
  },
];

/**
 * A URL with a password in it, anywhere in a value: `postgres://user:pass@host/db`,
 * `jdbc:mysql://u:p@h`, `a,redis://:pass@h`. The user part has no `/`, so `https://host/a@b` is not one.
 */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/?#\s@:]*:[^\s@]+@/i;

/** Whether a value looks like a credential whatever its variable is called. */
export function isSecretValue(value: string): boolean {
  return SECRET_VALUE_FORMATS.some((f) => f.pattern.test(value)) || URL_WITH_PASSWORD.test(value);
}

/**
 * A copy of `env` (same order) with secret-looking values replaced by `[redacted]`, or `env` as it is
 * when `showSecrets` is set. Empty values stay empty (nothing to hide, and it tells the user the variable is unset).
 */
export function redactEnv(env: NodeJS.ProcessEnv, { showSecrets = false }: { showSecrets?: boolean } = {}): NodeJS.ProcessEnv {
  if (showSecrets) return { ...env };
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    out[name] = value !== undefined && value !== '' && (isSecretName(name) || isSecretValue(value)) ? REDACTED : value;
  }
  return out;
}

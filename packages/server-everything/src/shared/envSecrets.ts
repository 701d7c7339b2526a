/**
 * Redaction of secret-looking environment variables for `printEnv` (legacy) and `get-env` (current). The
 * reference prints `process.env` as it is, API keys included, to any client that asks; here a value is
 * replaced by `[redacted]` when its name or its shape says it is a secret. Over-redaction is the safe
 * side (`KEYBOARD_LAYOUT` and `XAUTHORITY` are redacted too): `showEnvSecrets` restores the reference's output.
 *
 * Exports (stable, used by every profile): `REDACTED`, `isSecretName`, `isSecretValue`, `redactEnv`.
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

/**
 * Well-known credential formats, anywhere in a value: GitHub, OpenAI/Anthropic/Stripe-style `sk-`, Slack, AWS,
 * Google, GitLab, npm, Hugging Face, JWTs.
 */
const SECRET_VALUE =
  /(?:^|[^A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[\w-]{16,}|(?:sk|rk|pk)_(?:live|test)_\w{16,}|xox[abprs]-[\w-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|AIza[\w-]{30,}|glpat-[\w-]{20,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|ya29\.[\w-]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]*)/;

/**
 * A URL with a password in it, anywhere in a value: `postgres://user:pass@host/db`,
 * `jdbc:mysql://u:p@h`, `a,redis://:pass@h`. The user part has no `/`, so `https://host/a@b` is not one.
 */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/?#\s@:]*:[^\s@]+@/i;

/** Whether a value looks like a credential whatever its variable is called. */
export function isSecretValue(value: string): boolean {
  return SECRET_VALUE.test(value) || URL_WITH_PASSWORD.test(value);
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

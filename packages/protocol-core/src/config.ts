import { parseArgs } from 'node:util';
import { ConfigError } from './errors.js';

/**
 * One parser for CLI flags and environment variables. A flag wins over its variable, a variable
 * over the default. Values are checked once, here; the typed result is passed down from there.
 */
export interface OptionSpec<T = unknown> {
  /** `boolean` flags take no value (`--flag`); in the environment, `1|true|yes|on` and `0|false|no|off`. */
  type: 'string' | 'boolean';
  /** Repeatable flag (`--allow-host a --allow-host b`); its variable is comma-separated. */
  multiple?: boolean;
  short?: string;
  /**
   * Other long names accepted for the same option (`['allow-private-ips']` for `--allow-private-ips`), e.g. a
   * reference server's name for it. The config key, the variable and the default stay the option's own.
   */
  aliases?: readonly string[];
  /** Environment variable(s) read when the flag is absent, first found wins. */
  env?: string | readonly string[];
  description: string;
  /** Shown in `--help` after the flag, e.g. `PATH`. */
  valueName?: string;
  default?: T extends readonly (infer E)[] ? readonly E[] : T;
  /** How `--help` shows the default when the value itself reads badly (`30m` for 1800000 ms). */
  defaultLabel?: string;
  /** Turns one raw string into the value; throws `ConfigError` (or any Error) with what is wrong. */
  parse?: (raw: string) => T extends readonly (infer E)[] ? E : T;
  /**
   * Its variable is one that other programs set too (`LOG_LEVEL`, `PORT`), and editors pass their environment on
   * to the servers they start: a value its parser refuses there is not fatal. The default is used instead, and
   * the problem is kept for `configWarnings`. A bad flag still fails.
   */
  sharedEnv?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? boolean
  : S extends { parse: (raw: string) => infer P }
    ? S['multiple'] extends true
      ? P[]
      : S extends { default: unknown }
        ? P
        : P | undefined
    : S['multiple'] extends true
      ? string[]
      : S extends { default: unknown }
        ? string
        : string | undefined;

/** camelCase of a kebab-case flag name: `max-history` → `maxHistory`. */
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

export type ConfigOf<O extends OptionSpecs> = { [K in keyof O & string as Camel<K>]: ValueOf<O[K]> };

/** Where a config value came from. */
export type ConfigSource = 'flag' | 'env' | 'default';

const SOURCES = Symbol('mcpkit.configSources');
const WARNINGS = Symbol('mcpkit.configWarnings');

/** A shared environment variable whose value was refused and replaced by the default (see `OptionSpec.sharedEnv`). */
export interface ConfigWarning {
  /** The config key, camelCase (`logLevel`). */
  key: string;
  /** The variable, e.g. `LOG_LEVEL`. */
  name: string;
  /** What was wrong and what is used instead: `ignoring LOG_LEVEL="loud": … ; using the default info`. */
  message: string;
}

/** The shared variables `parseConfig` ignored because their values were refused, in option order. */
export function configWarnings(config: object): readonly ConfigWarning[] {
  return (config as { [WARNINGS]?: ConfigWarning[] })[WARNINGS] ?? [];
}

/**
 * Where `key` of a config returned by `parseConfig` came from: its flag, its environment variable
 * (with the variable's name), or the default. For log lines such as "file: … (from MEMORY_FILE_PATH)".
 */
export function configSource(config: object, key: string): { source: ConfigSource; name?: string } {
  const sources = (config as { [SOURCES]?: Record<string, { source: ConfigSource; name?: string }> })[SOURCES];
  return sources?.[key] ?? { source: 'default' };
}

/** Declares options with their literal types kept. */
export function defineOptions<const O extends OptionSpecs>(options: O): O {
  return options;
}

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

function envBoolean(raw: string, where: string): boolean {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError(`${where} must be true or false, got "${raw}"`, where);
}

function applyParse(spec: OptionSpec, raw: string, where: string): unknown {
  if (!spec.parse) return raw;
  try {
    return spec.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`invalid value for ${where}: ${why}`, where);
  }
}

/**
 * What the command line gave for option `name` under its own name or an alias, and the flag to name in a
 * message (the one used; the option's own when both were). A repeatable option collects them all.
 */
function givenValue(
  name: string,
  spec: OptionSpec,
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
): { flag: string; given: string | boolean | (string | boolean)[] | undefined } {
  const used = [name, ...(spec.aliases ?? [])].filter((n) => values[n] !== undefined);
  const [first] = used;
  if (first === undefined) return { flag: `--${name}`, given: undefined };
  const given = spec.multiple ? used.flatMap((n) => values[n] as (string | boolean)[]) : values[first];
  return { flag: `--${first}`, given };
}

/**
 * Parses `argv` and `env` against `options`. Throws `ConfigError` naming the flag or variable at
 * fault for an unknown flag, a missing value, a stray positional argument or a value `parse` refuses.
 */
export function parseConfig<O extends OptionSpecs>(options: O, argv: readonly string[], env: NodeJS.ProcessEnv): ConfigOf<O> {
  const parseOptions: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, spec] of Object.entries(options)) {
    parseOptions[name] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
  }
  for (const [name, spec] of Object.entries(options)) {
    for (const alias of spec.aliases ?? []) {
      if (Object.hasOwn(parseOptions, alias)) throw new Error(`option alias --${alias} of --${name} is already an option`);
      parseOptions[alias] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) };
    }
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: parseOptions, strict: true, allowPositionals: false }));
  } catch (error) {
    // parseArgs' messages already name the flag: "Unknown option '--x'", "Option '--port <value>' argument missing".
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(message ?? 'invalid arguments');
  }
  const config: Record<string, unknown> = {};
  const sources: Record<string, { source: ConfigSource; name?: string }> = {};
  const warnings: ConfigWarning[] = [];
  for (const [name, spec] of Object.entries(options)) {
    const { flag, given } = givenValue(name, spec, values);
    const envNames = spec.env === undefined ? [] : typeof spec.env === 'string' ? [spec.env] : spec.env;
    const envName = envNames.find((n) => env[n] !== undefined);
    let value: unknown;
    sources[camel(name)] =
      given !== undefined
        ? { source: 'flag', name: flag }
        : envName !== undefined
          ? { source: 'env', name: envName }
          : { source: 'default' };
    if (given !== undefined) {
      if (spec.type === 'boolean') value = Array.isArray(given) ? given.at(-1) : given;
      else if (spec.multiple) value = (given as string[]).map((raw) => applyParse(spec, raw, flag));
      else value = applyParse(spec, given as string, flag);
    } else if (envName !== undefined) {
      const raw = env[envName] as string;
      if (spec.type === 'boolean') value = envBoolean(raw, envName);
      else if (spec.multiple)
        value = raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .map((part) => applyParse(spec, part, envName));
      else if (spec.sharedEnv) value = parseShared(spec, raw, envName, camel(name), warnings);
      else value = applyParse(spec, raw, envName);
    } else if (spec.default !== undefined) {
      value = spec.default;
    } else {
      value = spec.type === 'boolean' ? false : spec.multiple ? [] : undefined;
    }
    config[camel(name)] = value;
  }
  Object.defineProperty(config, SOURCES, { value: sources, enumerable: false });
  Object.defineProperty(config, WARNINGS, { value: warnings, enumerable: false });
  return config as ConfigOf<O>;
}

/** A shared variable's value, or its option's default (and a warning) when the parser refuses it. */
function parseShared(spec: OptionSpec, raw: string, envName: string, key: string, warnings: ConfigWarning[]): unknown {
  try {
    return applyParse(spec, raw, envName);
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(`invalid value for ${envName}: `, '') : String(error);
    const fallback = spec.defaultLabel ?? (spec.default === undefined ? 'none' : String(spec.default));
    warnings.push({ key, name: envName, message: `ignoring ${envName}="${raw}": ${why}; using the default ${fallback}` });
    return spec.default;
  }
}

/** Parsers for common value kinds; each throws with a message that says what was expected. */
export const parse = {
  int:
    ({ min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {}) =>
    (raw: string): number => {
      const n = Number(raw.trim());
      if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n)) throw new Error(`"${raw}" is not a whole number`);
      if (n < min || n > max) throw new Error(`${n} is out of range (${min}..${max})`);
      return n;
    },
  /** One of `choices`; with `ignoreCase`, `HTTP` is `http`. `aliases` maps other accepted words to a choice. */
  oneOf:
    <const T extends string>(
      choices: readonly T[],
      { ignoreCase = false, aliases = {} }: { ignoreCase?: boolean; aliases?: Readonly<Record<string, T>> } = {},
    ) =>
    (raw: string): T => {
      const word = ignoreCase ? raw.trim().toLowerCase() : raw;
      if ((choices as readonly string[]).includes(word)) return word as T;
      if (Object.hasOwn(aliases, word)) return aliases[word] as T;
      throw new Error(`"${raw}" is not one of ${choices.join(', ')}`);
    },
  nonEmpty: (raw: string): string => {
    if (raw.trim() === '') throw new Error('must not be empty');
    return raw;
  },
  /** A duration: `500ms`, `30s`, `5m`, `1h`, or a bare number of seconds. Returns milliseconds. */
  duration: (raw: string): number => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
    if (!m) throw new Error(`"${raw}" is not a duration (e.g. 30s, 500ms, 5m)`);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
    const ms = Math.round(Number(m[1]) * unit);
    if (ms <= 0) throw new Error(`"${raw}" must be positive`);
    return ms;
  },
  /** A byte size: `1048576`, `512k`, `10mb`, `1g`. */
  bytes: (raw: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i.exec(raw.trim());
    if (!m) throw new Error(`"${raw}" is not a size (e.g. 10mb, 512k)`);
    const unit = (m[2] ?? 'b').toLowerCase()[0] as 'b' | 'k' | 'm' | 'g';
    const n = Math.round(Number(m[1]) * { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[unit]);
    if (n <= 0) throw new Error(`"${raw}" must be positive`);
    return n;
  },
};

/** Renders `--help` text for a bin. */
export function formatHelp(bin: string, description: string, options: OptionSpecs): string {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` <${spec.valueName ?? 'value'}>` : ''}`;
    const extras: string[] = [];
    if (spec.aliases?.length) extras.push(`also ${spec.aliases.map((a) => `--${a}`).join(', ')}`);
    if (spec.multiple) extras.push('repeatable');
    if (spec.env) extras.push(`env ${typeof spec.env === 'string' ? spec.env : spec.env.join(', ')}`);
    if (spec.defaultLabel) extras.push(`default ${spec.defaultLabel}`);
    else if (spec.default !== undefined && spec.type !== 'boolean' && !(Array.isArray(spec.default) && spec.default.length === 0))
      extras.push(`default ${Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default)}`);
    return [flag, `${spec.description}${extras.length ? ` (${extras.join('; ')})` : ''}`] as const;
  });
  const width = Math.min(40, Math.max(...rows.map(([f]) => f.length)) + 2);
  const lines = rows.map(([f, d]) => (f.length + 2 > width ? `  ${f}\n  ${' '.repeat(width)}${d}` : `  ${f.padEnd(width)}${d}`));
  return `Usage: ${bin} [options]\n\n${description}\n\nOptions:\n${lines.join('\n')}\n`;
}

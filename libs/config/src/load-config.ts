import { AppConfig, ENV_SCHEMA, isParseError, VarSpec } from './env-schema';

/** Thrown for a missing or malformed variable; its message is the one line printed at boot. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Parses and validates every variable once; the result is frozen. */
export function loadConfig(env: Env = process.env): AppConfig {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(ENV_SCHEMA) as [string, VarSpec<unknown>][]) {
    const given = env[spec.env];
    const raw = given === undefined || given === '' ? spec.default : given;
    if (raw === undefined) {
      if (spec.optional) continue;
      throw new ConfigError(spec.env, `is required: ${spec.description}`);
    }
    try {
      out[key] = spec.parse(raw);
    } catch (e) {
      if (isParseError(e)) throw new ConfigError(spec.env, e.message);
      throw e;
    }
  }
  return Object.freeze(out) as AppConfig;
}

/** The settings as safe-to-log strings: sensitive values are masked. */
export function describeConfig(config: AppConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, spec] of Object.entries(ENV_SCHEMA) as [string, VarSpec<unknown>][]) {
    const value = (config as Record<string, unknown>)[key];
    if (value === undefined) continue;
    out[spec.env] = spec.sensitive ? '***' : String(value);
  }
  return out;
}

/** Renders `.env.example` from the schema, so the file cannot drift from the code. */
export function renderEnvExample(): string {
  const lines = [
    '# Baseplate settings. Generated from libs/config/src/env-schema.ts; do not edit by hand.',
    '',
  ];
  for (const spec of Object.values(ENV_SCHEMA) as VarSpec<unknown>[]) {
    const flags = [
      spec.sensitive ? 'sensitive' : '',
      spec.default === undefined && !spec.optional ? 'required' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`# ${spec.description}${flags ? ` (${flags})` : ''}`);
    lines.push(`${spec.default === undefined ? '# ' : ''}${spec.env}=${spec.default ?? ''}`);
    lines.push('');
  }
  return lines.join('\n');
}

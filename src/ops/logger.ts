/**
 * Structured logs: levels (debug < info < warn < error), one line per event, plain text by default or JSON
 * on request (`TOOLGRAPH_LOG_FORMAT=json`, or `format: "json"`), with fields such as the request id.
 *
 * Logs always go to stderr (never stdout: in stdio MCP mode stdout carries the protocol). A child logger
 * carries fields into every line it writes (e.g. `{ requestId }`).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";
export type LogFields = Record<string, unknown>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export const LOGGER_DEFAULTS = {
  /** Lowest level written. Env TOOLGRAPH_LOG_LEVEL overrides the default. */
  level: "info" as LogLevel,
  /** text or json. Env TOOLGRAPH_LOG_FORMAT overrides the default. */
  format: "text" as LogFormat,
};

export interface LoggerOptions {
  /** Lowest level written. Default TOOLGRAPH_LOG_LEVEL, else "info". */
  level?: LogLevel | undefined;
  /** Line format. Default TOOLGRAPH_LOG_FORMAT, else "text". */
  format?: LogFormat | undefined;
  /** Where a line goes. Default: process.stderr. */
  write?: ((line: string) => void) | undefined;
  /** The clock (ms since epoch). Default Date.now. */
  now?: (() => number) | undefined;
}

export interface Logger {
  readonly level: LogLevel;
  readonly format: LogFormat;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

function isLevel(v: unknown): v is LogLevel {
  return typeof v === "string" && v in RANK;
}

/** Parses a level name; throws a message naming the value when it is not one. */
export function parseLogLevel(v: string, field = "TOOLGRAPH_LOG_LEVEL"): LogLevel {
  const s = v.trim().toLowerCase();
  if (!isLevel(s)) throw new Error(`${field}: must be one of debug, info, warn, error (got ${JSON.stringify(v)})`);
  return s;
}

export function parseLogFormat(v: string, field = "TOOLGRAPH_LOG_FORMAT"): LogFormat {
  const s = v.trim().toLowerCase();
  if (s !== "text" && s !== "json") throw new Error(`${field}: must be text or json (got ${JSON.stringify(v)})`);
  return s;
}

function textValue(v: unknown): string {
  if (typeof v === "string") return /[\s"=]/.test(v) || v === "" ? JSON.stringify(v) : v;
  if (v instanceof Error) return JSON.stringify(v.stack ?? v.message);
  return JSON.stringify(v) ?? String(v);
}

function errorJson(v: unknown): unknown {
  return v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env.TOOLGRAPH_LOG_LEVEL;
  const envFormat = process.env.TOOLGRAPH_LOG_FORMAT;
  const level = options.level ?? (envLevel ? parseLogLevel(envLevel) : LOGGER_DEFAULTS.level);
  const format = options.format ?? (envFormat ? parseLogFormat(envFormat) : LOGGER_DEFAULTS.format);
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const min = RANK[level];

  const make = (base: LogFields): Logger => {
    const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
      if (RANK[lvl] < min) return;
      const all = { ...base, ...fields };
      const time = new Date(now()).toISOString();
      if (format === "json") {
        const out: Record<string, unknown> = { time, level: lvl, msg };
        for (const [k, v] of Object.entries(all)) if (v !== undefined) out[k] = errorJson(v);
        write(JSON.stringify(out));
      } else {
        const parts = [time, lvl.toUpperCase().padEnd(5), msg];
        for (const [k, v] of Object.entries(all)) if (v !== undefined) parts.push(`${k}=${textValue(v)}`);
        write(parts.join(" "));
      }
    };
    return {
      level,
      format,
      debug: (m, f) => emit("debug", m, f),
      info: (m, f) => emit("info", m, f),
      warn: (m, f) => emit("warn", m, f),
      error: (m, f) => emit("error", m, f),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({});
}

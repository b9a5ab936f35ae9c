/**
 * Named prepared statements for the hot write path. A statement whose SQL text starts with
 * `PREPARE_MARK` is sent as a named statement (name = hash of its text), so PostgreSQL parses and plans it
 * once per connection and later executions only bind and execute (the record path's statement of
 * data-modifying CTEs spends more time in planning than in executing). Only marked statements are named —
 * texts built from a varying number of rows would otherwise grow the per-connection statement cache without
 * bound; a marked statement must have a bounded number of text variants.
 *
 * Implemented as a wrapper of the `pg` pool given to kysely's PostgresDialect (which calls
 * `pool.connect()` and `client.query(text, values)`); works for the server and for PGlite's node-postgres
 * adapter alike.
 */
import { createHash } from "node:crypto";
import type pg from "pg";

export const PREPARE_MARK = "/* tg:prepare */";

export function preparingPool(pool: pg.Pool): pg.Pool {
  // TG_NO_PREPARE=1 sends marked statements unnamed (A/B measurements); read once, not per query.
  const enabled = process.env.TG_NO_PREPARE !== "1";
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (!name) {
      name = `tg_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
  const wrapped = new WeakMap<object, pg.PoolClient>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    let w = wrapped.get(client);
    if (!w) {
      const query = (config: unknown, values?: unknown, callback?: unknown) => {
        if (typeof config === "string" && enabled && config.startsWith(PREPARE_MARK)) {
          return (client.query as (c: pg.QueryConfig, cb?: unknown) => unknown)(
            { name: nameOf(config), text: config, values: values as unknown[] },
            callback,
          );
        }
        return (client.query as (c: unknown, v?: unknown, cb?: unknown) => unknown)(config, values, callback);
      };
      w = new Proxy(client, {
        get(target, prop) {
          if (prop === "query") return query;
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
      wrapped.set(client, w);
    }
    return w;
  };
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "connect") return async () => wrap(await target.connect());
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

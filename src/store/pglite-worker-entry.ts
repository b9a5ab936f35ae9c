/**
 * The embedded database's thread: opens PGlite for `workerData.home` (openPGlite: template, existing
 * directory, or memory) and executes the PostgreSQL wire protocol that the main thread's connections send
 * (src/store/pglite-worker.ts; why: docs/decisions/pglite-worker.md).
 *
 * Messages in (all handled in arrival order, one at a time — PGlite is one session):
 * - { type: "data", id, buf }: bytes a connection wrote. Only whole protocol messages are executed (a
 *   partial one waits for its rest); a connection's first message is the startup packet (no type byte).
 *   Exactly one { type: "data", id, buf } reply follows each, empty when the backend said nothing.
 * - { type: "end", id }: the connection closed; a transaction it left open is rolled back.
 * - { type: "close" }: PGlite closes; { type: "closed" } answers.
 * Out: { type: "ready" } once open, or { type: "open-failed", message }; { type: "error", id, message }
 * when executing a connection's bytes threw (the connection is then dropped).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { PGlite } from "@electric-sql/pglite";
import { type OpenPGliteOptions, openPGlite } from "./pglite-template.ts";

type In = { type: "data"; id: number; buf: ArrayBuffer } | { type: "end"; id: number } | { type: "close" };

interface Conn {
  started: boolean;
  rest: Uint8Array | undefined;
}

/** This thread's database and the state of each connection's bytes (one thread, one database). */
interface Serving {
  pglite: PGlite | undefined;
  conns: Map<number, Conn>;
}
const port = parentPort!;

/** The length of the whole messages at the start of `buf` (the first one a startup packet when `startup`). */
function wholeLength(buf: Uint8Array, startup: boolean): number {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 0;
  let first = startup;
  for (;;) {
    const head = first ? 0 : 1;
    if (at + head + 4 > buf.length) return at;
    const len = view.getInt32(at + head);
    if (len < 4) throw new Error(`malformed protocol message (length ${len})`);
    if (at + head + len > buf.length) return at;
    at += head + len;
    first = false;
  }
}

/** A reply that owns its whole ArrayBuffer (so it can be transferred). */
function own(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer)
    return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}

async function data({ pglite, conns }: Serving, id: number, buf: ArrayBuffer): Promise<void> {
  let conn = conns.get(id);
  if (!conn) {
    conn = { started: false, rest: undefined };
    conns.set(id, conn);
  }
  let bytes = new Uint8Array(buf);
  if (conn.rest) {
    const joined = new Uint8Array(conn.rest.length + bytes.length);
    joined.set(conn.rest);
    joined.set(bytes, conn.rest.length);
    bytes = joined;
    conn.rest = undefined;
  }
  const whole = wholeLength(bytes, !conn.started);
  if (whole < bytes.length) conn.rest = bytes.slice(whole);
  const replies: Uint8Array[] = [];
  let at = 0;
  if (whole > 0 && !conn.started) {
    // The startup packet is executed alone (PGlite answers it with the session's parameters, in a view of
    // its receive buffer that the next execution overwrites: copied).
    const len = new DataView(bytes.buffer, bytes.byteOffset).getInt32(0);
    replies.push((await pglite!.execProtocolRaw(bytes.subarray(0, len))).slice());
    conn.started = true;
    at = len;
  }
  if (whole > at) replies.push(await pglite!.execProtocolRaw(bytes.subarray(at, whole)));
  const total = replies.reduce((n, r) => n + r.length, 0);
  const out = replies.length === 1 ? replies[0]! : new Uint8Array(total);
  if (replies.length > 1) {
    let o = 0;
    for (const r of replies) {
      out.set(r, o);
      o += r.length;
    }
  }
  const reply = own(out);
  port.postMessage({ type: "data", id, buf: reply }, [reply]);
}

async function end({ pglite, conns }: Serving, id: number): Promise<void> {
  conns.delete(id);
  // A connection cut inside a transaction leaves the one session in it: the next connection starts clean.
  if (pglite?.isInTransaction()) await pglite.exec("ROLLBACK").catch(() => {});
}

function serve(home: string, open: OpenPGliteOptions): void {
  const st: Serving = { pglite: undefined, conns: new Map() };
  const opened = openPGlite(home, process.env, open).then(
    (p) => {
      st.pglite = p;
      port.postMessage({ type: "ready" });
    },
    (err: unknown) => {
      port.postMessage({ type: "open-failed", message: err instanceof Error ? err.message : String(err) });
    },
  );
  let chain: Promise<void> = opened;
  port.on("message", (m: In) => {
    chain = chain.then(async () => {
      if (m.type === "close") {
        await st.pglite?.close().catch(() => {});
        st.pglite = undefined;
        port.postMessage({ type: "closed" });
        return;
      }
      if (!st.pglite) {
        if (m.type === "data")
          port.postMessage({ type: "error", id: m.id, message: "the embedded database is closed" });
        return;
      }
      if (m.type === "end") return end(st, m.id);
      try {
        await data(st, m.id, m.buf);
      } catch (err) {
        st.conns.delete(m.id);
        port.postMessage({ type: "error", id: m.id, message: err instanceof Error ? err.message : String(err) });
      }
    });
  });
}

const { home, open } = workerData as { home: string; open: OpenPGliteOptions };
serve(home, open);

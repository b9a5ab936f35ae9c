/**
 * Reading a request body under a byte limit. Over the limit the rest of the upload is read and discarded
 * (up to `drainBytes` more) and only then does the promise reject with 413: answering (and closing) while
 * the client is still sending would reset the connection before it reads the 413. Past the drain allowance
 * (or a declared length beyond it) the answer is sent at once and the connection dropped.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./errors.ts";

export const BODY_DEFAULTS = {
  /** Largest accepted body: 10 MiB. */
  limitBytes: 10 * 1024 * 1024,
  /** Bytes still read and discarded after the limit, before the connection is dropped: 64 MiB. */
  drainBytes: 64 * 1024 * 1024,
} as const;

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "payload-too-large", `request body is larger than the limit of ${limit} bytes`, {
    headers: { connection: "close" },
  });
}

export function readBody(
  req: IncomingMessage,
  limitBytes: number = BODY_DEFAULTS.limitBytes,
  drainBytes: number = BODY_DEFAULTS.drainBytes,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    let received = 0;
    let over = false;
    let settled = false;
    const chunks: Buffer[] = [];
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    if (Number.isFinite(declared) && declared > limitBytes + drainBytes) {
      // Not worth reading: answer now; the connection is dropped after the answer.
      over = true;
      fail(tooLarge(limitBytes));
    } else if (Number.isFinite(declared) && declared > limitBytes) over = true;
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (over || received > limitBytes) {
        over = true;
        chunks.length = 0;
        if (received > limitBytes + drainBytes) {
          fail(tooLarge(limitBytes));
          req.socket.destroy();
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (over) fail(tooLarge(limitBytes));
      else if (!settled) {
        settled = true;
        resolve(Buffer.concat(chunks, received));
      }
    });
    req.on("error", (err) => fail(err));
    req.on("close", () => {
      if (!req.complete) fail(new HttpError(400, "invalid-input", "the request body was cut short", { field: "" }));
    });
  });
}

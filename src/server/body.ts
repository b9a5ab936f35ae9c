/**
 * Reading a request body under a byte limit. Over the limit the promise rejects with 413 at once; the rest
 * of the upload is drained (so the client can read the answer) up to `drainBytes` more, after which the
 * connection is dropped.
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
  return new HttpError(413, "payload-too-large", `request body is larger than the limit of ${limit} bytes`, { headers: { connection: "close" } });
}

export function readBody(req: IncomingMessage, limitBytes: number = BODY_DEFAULTS.limitBytes, drainBytes: number = BODY_DEFAULTS.drainBytes): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    let received = 0;
    let over = false;
    const chunks: Buffer[] = [];
    const overLimit = () => {
      over = true;
      chunks.length = 0;
      reject(tooLarge(limitBytes));
    };
    if (Number.isFinite(declared) && declared > limitBytes) overLimit();
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (over) {
        if (received > limitBytes + drainBytes) req.socket.destroy();
        return;
      }
      if (received > limitBytes) {
        overLimit();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!over) resolve(Buffer.concat(chunks, received));
    });
    req.on("error", (err) => {
      if (!over) reject(err);
    });
  });
}

/**
 * A stdio wire for the SDK's `serveStdio` entry that keeps answering after stdin ends. The SDK's own
 * StdioServerTransport closes itself (aborting the requests it is running) when stdin reaches end of file;
 * toolgraph's stdio doors promise that a piped request followed by EOF still gets its answer, so this wire
 * only reports the end (`ended`) and closes when its owner says so, after the running requests finished
 * (in-flight.ts). Messages are newline-delimited JSON-RPC, read with the SDK's ReadBuffer.
 */
import { type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from "@modelcontextprotocol/server";

export class StdioWire implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Resolves when stdin ends or closes (the client hung up); the wire stays writable. */
  readonly ended: Promise<void>;
  private readonly buffer = new ReadBuffer();
  private closed = false;
  private endedResolve!: () => void;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
  ) {
    this.ended = new Promise((resolve) => {
      this.endedResolve = resolve;
    });
  }

  private readonly onData = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  };
  private readonly onEnd = () => this.endedResolve();
  private readonly onError = (err: Error) => this.onerror?.(err);

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onError);
    this.stdin.once("end", this.onEnd);
    this.stdin.once("close", this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("stdio wire is closed"));
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(serializeMessage(message), (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else this.stdout.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onError);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    (this.stdin as NodeJS.ReadStream).pause?.();
    this.buffer.clear();
    this.endedResolve();
    this.onclose?.();
  }
}

/** Resolves when the client hangs up (stdin ends) or one of `signals` arrives, whichever is first. */
export async function hangUp(
  wire: StdioWire,
  signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"],
): Promise<void> {
  let onSignal = () => {};
  const signalled = new Promise<void>((resolve) => {
    onSignal = resolve;
  });
  for (const s of signals) process.once(s, onSignal);
  try {
    await Promise.race([wire.ended, signalled]);
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}

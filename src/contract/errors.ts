/** One error family for misuse and bad input, with string codes (STYLE.md habit 6). */
import { type Advice, adviceText, type Door, respell } from "../formats/advice.ts";

export class ToolgraphError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** What the caller can change to succeed; `message` ends with the library's spelling of it (src/formats/advice.ts). */
  readonly advice: Advice | undefined;
  /** `message` is written without the advice, which is appended as the library spells it. */
  constructor(code: string, message: string, details?: Record<string, unknown>, advice?: Advice) {
    super(advice ? message + adviceText(advice, "library") : message);
    this.name = "ToolgraphError";
    this.code = code;
    this.details = details;
    this.advice = advice;
  }

  /** The message with its advice spelled for `door` (an HTTP error names the request field, the CLI its flag). */
  messageFor(door: Door): string {
    return respell(this.message, this.advice, door);
  }
}

/** One error family for misuse and bad input, with string codes (STYLE.md habit 6). */
export class ToolgraphError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ToolgraphError";
    this.code = code;
    this.details = details;
  }
}

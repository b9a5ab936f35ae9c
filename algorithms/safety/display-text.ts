/**
 * Display text of untrusted origin (tool names, titles, descriptions from upstream servers), made safe to show
 * to a model or a terminal: characters that are invisible, reorder what is shown, or act on a terminal are
 * removed; line and paragraph separators become newlines. The original stays with its caller for audit.
 *
 * Removed (each counted by kind):
 * - control: C0 controls except TAB and LF (CR too: CRLF becomes LF), DEL, and the C1 controls U+0080–U+009F
 *   (U+009B is a terminal's CSI, ESC U+001B starts escape sequences);
 * - bidi: U+200E LRM, U+200F RLM, U+061C ALM, the embeddings and overrides U+202A–U+202E and the isolates
 *   U+2066–U+2069 (the "Trojan Source" reorderings: Boucher & Anderson, USENIX Security 2023);
 * - invisible: zero-width space, non-joiner and joiner U+200B–U+200D, word joiner and invisible operators
 *   U+2060–U+2064, the byte order mark U+FEFF, the soft hyphen U+00AD, the Mongolian vowel separator U+180E;
 * - tag: Unicode tag characters U+E0000–U+E007F (text hidden from readers but read by models: the "ASCII
 *   smuggling" of prompt injections);
 * - private: a lone UTF-16 surrogate (not a character; replaced by U+FFFD).
 * Replaced: U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR → "\n" (kind separator).
 * Invariants: the output contains none of the removed characters; text without them is returned unchanged
 * (the same string); sanitising twice equals sanitising once.
 */

export type RemovedKind = "control" | "bidi" | "invisible" | "tag" | "separator" | "surrogate";

export interface SanitizedText {
  text: string;
  /** How many characters of each kind were removed or replaced (absent kinds are absent). */
  removed: Partial<Record<RemovedKind, number>>;
}

const SUSPECT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]/;

function kindOf(code: number): RemovedKind | undefined {
  if (code === 0x09 || code === 0x0a) return undefined;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return "control";
  if (
    code === 0x200e ||
    code === 0x200f ||
    code === 0x061c ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  )
    return "bidi";
  if (
    (code >= 0x200b && code <= 0x200d) ||
    (code >= 0x2060 && code <= 0x2064) ||
    code === 0xfeff ||
    code === 0x00ad ||
    code === 0x180e
  )
    return "invisible";
  if (code === 0x2028 || code === 0x2029) return "separator";
  if (code >= 0xe0000 && code <= 0xe007f) return "tag";
  return undefined;
}

/** The display-safe form of `s` and what was taken out (see the header). */
export function sanitizeDisplayText(s: string): SanitizedText {
  if (!SUSPECT.test(s)) return { text: s, removed: {} };
  const removed: Partial<Record<RemovedKind, number>> = {};
  const count = (k: RemovedKind) => {
    removed[k] = (removed[k] ?? 0) + 1;
  };
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        i++;
        if (kindOf(cp) === "tag") count("tag");
        else out += String.fromCharCode(c, d);
        continue;
      }
      count("surrogate");
      out += "\ufffd";
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      count("surrogate");
      out += "\ufffd";
      continue;
    }
    if (c === 0x0d) {
      // CRLF → LF; a lone CR is a control that moves a terminal's cursor.
      if (s.charCodeAt(i + 1) !== 0x0a) count("control");
      continue;
    }
    const k = kindOf(c);
    if (k === undefined) out += s[i];
    else if (k === "separator") {
      count("separator");
      out += "\n";
    } else count(k);
  }
  return { text: out, removed };
}

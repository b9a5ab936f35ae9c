/**
 * The headless Chromium the browser tests drive, with nothing to install beyond `npm install`: the binary
 * the dev dependency `@sparticuz/chromium` ships, or the browser at TOOLGRAPH_CHROMIUM when that is set.
 * No browser is an error, never a skip: a missing browser must not pass for a working console. Why this
 * source: docs/decisions/fresh-machine.md.
 *
 * The package unpacks into the temp directory and trusts any file already there, so two test files
 * unpacking at once, or an unpack cut short, would leave a half-written binary that every later run
 * launches. Here each unpack goes into a fresh directory that is renamed into place once complete
 * (`$TMPDIR/toolgraph-chromium-<version>/`): the one that appears is always whole.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface TestBrowser {
  executablePath: string;
  /** Command-line flags for a headless run without a GPU (WebGL through SwiftShader). */
  args: string[];
  /** Where the browser came from, for error messages. */
  source: string;
}

/** Flags for a browser named by TOOLGRAPH_CHROMIUM (a distribution's chromium); the npm one brings its own. */
const SYSTEM_BROWSER_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  // WebGL without a GPU: SwiftShader (sigma.js draws with WebGL).
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
];

interface NpmChromium {
  executablePath(): Promise<string>;
  args: string[];
}

export interface FindBrowserOptions {
  /** A browser binary to use instead of the npm one. Default: TOOLGRAPH_CHROMIUM. */
  path?: string;
  /** Loads the npm package. Default: `import("@sparticuz/chromium")`. */
  loadPackage?: () => Promise<NpmChromium>;
  /** The directory the browser is unpacked into (complete or absent). Default `$TMPDIR/toolgraph-chromium-<version>`. */
  unpackDir?: string;
}

/** The npm package's version, which names the directory it unpacks into. */
function npmChromiumVersion(): string {
  const entry = fileURLToPath(import.meta.resolve("@sparticuz/chromium"));
  return (JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version;
}

/**
 * Unpacks the package's browser into `dir` unless it is there: into a fresh sibling directory (the package
 * writes wherever os.tmpdir() points, so TMPDIR names it while the call starts), then renamed to `dir`. When another
 * process got there first, its copy is used and this one removed.
 */
async function unpackOnce(pkg: NpmChromium, dir: string): Promise<string> {
  const binary = join(dir, "chromium");
  if (existsSync(binary)) return binary;
  const work = mkdtempSync(`${dir}-unpacking-`);
  try {
    // The package reads os.tmpdir() before its first await: TMPDIR points at `work` for that part only.
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = work;
    let unpacking: Promise<string>;
    try {
      unpacking = pkg.executablePath();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    const unpacked = await unpacking;
    if (unpacked !== join(work, "chromium")) throw new Error(`unpacked to ${unpacked}, not into ${work}`);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    throw e;
  }
  try {
    renameSync(work, dir);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(binary)) throw e;
  }
  return binary;
}

/** Finds a browser or throws an error saying what is missing and how to get it. */
export async function findTestBrowser(opts: FindBrowserOptions = {}): Promise<TestBrowser> {
  const path = opts.path ?? process.env.TOOLGRAPH_CHROMIUM;
  if (path) {
    if (!existsSync(path))
      throw new Error(
        `TOOLGRAPH_CHROMIUM names ${path}, which does not exist: unset it to use the browser from npm (@sparticuz/chromium)`,
      );
    return { executablePath: path, args: SYSTEM_BROWSER_ARGS, source: `TOOLGRAPH_CHROMIUM=${path}` };
  }
  const load = opts.loadPackage ?? (async () => (await import("@sparticuz/chromium")).default);
  let pkg: NpmChromium;
  let executablePath: string;
  try {
    pkg = await load();
    executablePath = await unpackOnce(
      pkg,
      opts.unpackDir ?? join(tmpdir(), `toolgraph-chromium-${npmChromiumVersion()}`),
    );
  } catch (e) {
    throw new Error(
      `no browser for the console test: @sparticuz/chromium could not be loaded or unpacked (${(e as Error).message}). ` +
        "Run `npm install` (it is a dev dependency), or set TOOLGRAPH_CHROMIUM to a Chromium binary. The test fails rather than skips.",
    );
  }
  return { executablePath, args: pkg.args, source: "@sparticuz/chromium" };
}

/**
 * The headless Chromium the browser tests drive, with nothing to install beyond `npm install`: the binary
 * the dev dependency `@sparticuz/chromium` ships (unpacked into the temp directory on first use), or the
 * browser at TOOLGRAPH_CHROMIUM when that is set. No browser is an error, never a skip: a missing browser
 * must not pass for a working console. Why this source: docs/decisions/fresh-machine.md.
 */
import { existsSync } from "node:fs";

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
}

/** Finds a browser or throws an error saying what is missing and how to get it. */
export async function findTestBrowser(opts: FindBrowserOptions = {}): Promise<TestBrowser> {
  const path = opts.path ?? process.env.TOOLGRAPH_CHROMIUM;
  if (path) {
    if (!existsSync(path)) throw new Error(`TOOLGRAPH_CHROMIUM names ${path}, which does not exist: unset it to use the browser from npm (@sparticuz/chromium)`);
    return { executablePath: path, args: SYSTEM_BROWSER_ARGS, source: `TOOLGRAPH_CHROMIUM=${path}` };
  }
  const load = opts.loadPackage ?? (async () => (await import("@sparticuz/chromium")).default);
  let pkg: NpmChromium;
  let executablePath: string;
  try {
    pkg = await load();
    executablePath = await pkg.executablePath();
  } catch (e) {
    throw new Error(
      `no browser for the console test: @sparticuz/chromium could not be loaded or unpacked (${(e as Error).message}). ` +
        "Run `npm install` (it is a dev dependency), or set TOOLGRAPH_CHROMIUM to a Chromium binary. The test fails rather than skips.",
    );
  }
  return { executablePath, args: pkg.args, source: "@sparticuz/chromium" };
}

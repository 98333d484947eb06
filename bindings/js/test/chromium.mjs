// Where the browser tests find Chromium, and whether they may do without it.
import { existsSync, statSync } from "node:fs";

/** Debian's chromium, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** Why there is no browser to test with ("" when there is one). */
export const MISSING = existsSync(CHROMIUM) && statSync(CHROMIUM).isFile()
  ? ""
  : `no Chromium at ${CHROMIUM} (make setup, or apt-get install chromium, or set CHROMIUM_PATH)`;

/** Under CI the browser tests must run: a missing browser fails them. */
export const REQUIRED = /^(1|true|yes)$/i.test(process.env.CI ?? "");

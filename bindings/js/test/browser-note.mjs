// Run by `npm test` after node --test: repeats, below the TAP summary, that
// the browser tests were skipped, so that a pass without them is not mistaken
// for a full one. (Under CI=true they failed instead; see browser.test.mjs.)
import { MISSING, REQUIRED } from "./chromium.mjs";

if (MISSING && !REQUIRED) {
  console.warn(`\nWARNING: the playground browser tests were SKIPPED: ${MISSING}.`);
  console.warn("Everything else passed; set CI=true to make a missing browser fail the run.\n");
}

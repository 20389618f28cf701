// Exports the audit log to an NDJSON file (one entry a line) with a cursor walk that can stop at
// any point (an error, Ctrl-C, a crash) and resume where it stopped, writing each entry once.
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';

/**
 * The position of an export: the cursor of the next page to fetch and the file's length once
 * every entry before it was written. Saved after each page (write, then rename, so a crash leaves
 * the old or the new state, never half of one).
 *
 * @typedef {{ cursor: string | null, bytes: number, entries: number, done: boolean }} ExportState
 */

/** @param {string} stateFile @returns {ExportState} */
function readState(stateFile) {
  if (!existsSync(stateFile)) return { cursor: null, bytes: 0, entries: 0, done: false };
  return JSON.parse(readFileSync(stateFile, 'utf8'));
}

/** @param {string} stateFile @param {ExportState} state */
function saveState(stateFile, state) {
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
  renameSync(`${stateFile}.tmp`, stateFile);
}

/**
 * Exports every audit entry after the saved position into `file`, page by page.
 *
 * @param {import('@followup/sdk').FollowUp} client
 * @param {{ file: string, stateFile: string, limit?: number, onPage?: (state: ExportState) => void }} options
 * @returns {Promise<ExportState>} the final state (`done: true`)
 */
export async function exportAudit(client, { file, stateFile, limit = 200, onPage }) {
  let state = readState(stateFile);
  if (state.done) return state;
  const descriptor = openSync(file, existsSync(file) ? 'r+' : 'w');
  try {
    // Whatever was written after the last saved state (a page cut off by a crash) goes: that page
    // is fetched again from the saved cursor, so no entry is written twice.
    ftruncateSync(descriptor, state.bytes);
    let page = await client.audit.list({
      limit,
      ...(state.cursor ? { cursor: state.cursor } : {}),
    });
    for (;;) {
      const lines = page.items.map((entry) => `${JSON.stringify(entry)}\n`).join('');
      const bytes = Buffer.from(lines);
      writeSync(descriptor, bytes, 0, bytes.length, state.bytes);
      fsyncSync(descriptor);
      state = {
        cursor: page.nextCursor,
        bytes: state.bytes + bytes.length,
        entries: state.entries + page.items.length,
        done: !page.hasNextPage(),
      };
      saveState(stateFile, state);
      onPage?.(state);
      if (state.done) return state;
      page = await page.getNextPage();
    }
  } finally {
    closeSync(descriptor);
  }
}

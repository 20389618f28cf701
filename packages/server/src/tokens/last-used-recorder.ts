import type { Queryable } from '../storage/database.js';
import { writeTokenLastUsed } from '../stores/token-store.js';

/** How often, at most, a token's `lastUsedAt` is written: once a minute. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** @internal Writes tokens' `last_used_at`, at most once a minute per token. */
export interface LastUsedRecorder {
  /**
   * Notes that a token was used at `now`; `stored` is the row's `last_used_at` (Unix ms, 0 when
   * unknown or never used). Writes only when neither the row nor this process wrote it in the
   * last {@link LAST_USED_RESOLUTION_MS}.
   */
  noteUse(tokenId: string, use: { stored: number; now: number }): Promise<void>;
}

/**
 * @internal Makes the recorder of one account store. It remembers when this process last wrote
 * each token's `last_used_at`, so that a busy token costs one write a minute, not one per
 * request (the row's own value covers other processes).
 */
export function createLastUsedRecorder(database: Queryable): LastUsedRecorder {
  const lastUsedWritten = new Map<string, number>();
  return {
    async noteUse(tokenId, { stored, now }) {
      const written = Math.max(stored, lastUsedWritten.get(tokenId) ?? 0);
      if (now - written < LAST_USED_RESOLUTION_MS) return;
      if (lastUsedWritten.size >= 10_000) lastUsedWritten.clear();
      lastUsedWritten.set(tokenId, now);
      await writeTokenLastUsed(database, {
        tokenId,
        now,
        resolutionMs: LAST_USED_RESOLUTION_MS,
      });
    },
  };
}

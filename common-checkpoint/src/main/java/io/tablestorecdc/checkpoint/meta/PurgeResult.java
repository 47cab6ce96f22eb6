package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * What one retention pass removed.
 *
 * @param snapshotsDeleted batch snapshots whose rows were all deleted
 * @param rowsDeleted rows deleted, batch-log rows included
 * @param snapshotsRemaining snapshots still older than the retention (left for the next pass, which
 *     keeps each pass's requests bounded)
 */
@Internal
public record PurgeResult(int snapshotsDeleted, long rowsDeleted, int snapshotsRemaining) {}

package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Optional;

/**
 * The row-level operations the meta table needs, in the project's own terms.
 *
 * <p>Every write is conditional (or a delete, which is idempotent), so an implementation may retry
 * a write whose response was lost: a retried put-if-absent then reports {@link
 * PutOutcome#ALREADY_EXISTS} and a retried compare-and-set reports {@code false}, and {@link
 * TunnelMeta} re-reads the row to tell its own earlier write from someone else's. Failures other
 * than a failed condition are thrown as {@link MetaTableException}.
 */
@Internal
public interface MetaTableClient extends AutoCloseable {

    /** Most rows one batch write may carry (the server's limit for BatchWriteRow). */
    int MAX_BATCH_ROWS = 200;

    /** Most rows one batch read may ask for (the server's limit for BatchGetRow). */
    int MAX_BATCH_GET_ROWS = 100;

    /** Most rows one range read returns (the server's limit for GetRange). */
    int MAX_RANGE_ROWS = 5000;

    /** The meta table's name, for error messages. */
    String tableName();

    /**
     * Creates the table (max versions 1, no TTL) unless it exists; fails with a clear error when a
     * table of that name exists with another primary key.
     *
     * @return true when this call created the table
     */
    boolean createTableIfMissing();

    /** Writes {@code row} only if no row with its key exists. */
    PutOutcome putIfAbsent(MetaRow row);

    /**
     * Writes each row only if no row with its key exists, in one request; the outcomes are in the
     * order of {@code rows}.
     *
     * @param rows at most {@link #MAX_BATCH_ROWS} rows with distinct keys
     */
    List<PutOutcome> putAllIfAbsent(List<MetaRow> rows);

    /**
     * Replaces the existing row with {@code row} if its column {@code column} equals {@code
     * expected}.
     *
     * @return false when the row is absent or the column holds another value
     */
    boolean replaceIf(MetaRow row, String column, MetaValue expected);

    /**
     * One replace of {@link #replaceAllIf}: {@code row} if its {@code column} equals {@code
     * expected}.
     */
    record ConditionalReplace(MetaRow row, String column, MetaValue expected) {}

    /**
     * {@link #replaceIf} for each of several rows, in one request where the implementation can
     * batch writes; by default one {@link #replaceIf} each.
     *
     * @param replaces at most {@link #MAX_BATCH_ROWS}, of distinct keys
     * @return per replace, in order, whether the row was replaced (false as {@link #replaceIf})
     */
    default List<Boolean> replaceAllIf(List<ConditionalReplace> replaces) {
        List<Boolean> replaced = new java.util.ArrayList<>(replaces.size());
        replaces.forEach(r -> replaced.add(replaceIf(r.row(), r.column(), r.expected())));
        return replaced;
    }

    /**
     * Deletes the rows (absent ones are ignored), in one request.
     *
     * @param keys at most {@link #MAX_BATCH_ROWS} keys
     */
    void deleteAll(List<MetaRowKey> keys);

    Optional<MetaRow> get(MetaRowKey key);

    /**
     * The rows of {@code keys}, in their order (empty for a key without a row), in one request
     * where the implementation can batch reads; by default one {@link #get} each.
     *
     * @param keys at most {@link #MAX_BATCH_GET_ROWS} distinct keys
     */
    default List<Optional<MetaRow>> getAll(List<MetaRowKey> keys) {
        List<Optional<MetaRow>> rows = new java.util.ArrayList<>(keys.size());
        keys.forEach(key -> rows.add(get(key)));
        return rows;
    }

    /**
     * One request of a range read over the rows whose key starts with {@code (tunnelId, batch)}, in
     * key order, starting at {@code fromChannelId} (inclusive) or at the first such row.
     *
     * @param limit at most {@link #MAX_RANGE_ROWS}
     */
    RangePage readRange(String tunnelId, String batch, Optional<String> fromChannelId, int limit);

    @Override
    void close();
}

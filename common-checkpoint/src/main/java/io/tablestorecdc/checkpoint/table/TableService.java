package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The read requests of one data table, one service request per call. Implementations do no
 * batching, paging or row retries: {@link TableReader} does. Each call may throw the SDK's
 * exceptions for a failed request as a whole.
 */
@Internal
public interface TableService extends AutoCloseable {

    /** The table's name. */
    String tableName();

    /** The table's primary-key columns, in order (DescribeTable). */
    List<PrimaryKeySchema> primaryKey();

    /**
     * The attribute columns whose values before a change the table's stream records carry (the
     * stream specification's origin columns, DescribeTable); empty when it names none or the table
     * has no stream.
     */
    Set<String> streamOriginColumns();

    /**
     * One BatchGetRow of at most {@link TableReader#MAX_KEYS_PER_BATCH} full keys, answered in key
     * order; {@code columns} empty reads every column.
     */
    List<RowResult> batchGet(List<PrimaryKey> keys, Set<String> columns);

    /** One forward GetRange page of at most {@code limit} rows; {@code columns} as above. */
    RangePage getRange(KeyRange range, Set<String> columns, int limit);

    /**
     * {@link #getRange} sent now and answered later, so that a reader asks for its next page while
     * it works through the current one; it fails with the exception {@link #getRange} would throw.
     * The default sends it on the calling thread.
     */
    default CompletableFuture<RangePage> getRangeAsync(
            KeyRange range, Set<String> columns, int limit) {
        try {
            return CompletableFuture.completedFuture(getRange(range, columns, limit));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** ComputeSplitsBySize: ranges that cover the key space in order, about {@code bytes} each. */
    List<KeyRange> splits(long bytes);

    @Override
    void close();
}

package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.List;
import java.util.Optional;

/**
 * The service as a writer sees it: one BatchWriteRow request, and the table's primary key. {@link
 * SdkTableWriteClient} is the adapter over the SDK; tests use a fake.
 */
@Internal
public interface TableWriteClient extends AutoCloseable {

    /** One primary-key column of the table's schema. */
    record KeyColumn(String name, CellValue.Type type) {}

    /**
     * The outcome of one row of a request: success, or the service's error code and message; and
     * the write capacity units the service reported the row consumed (0 when it reported none).
     */
    record RowOutcome(Optional<String> errorCode, String message, long writeCapacityUnits) {
        public static final RowOutcome OK = ok(0);

        /** A row written, consuming {@code writeCapacityUnits}. */
        public static RowOutcome ok(long writeCapacityUnits) {
            return new RowOutcome(Optional.empty(), "", writeCapacityUnits);
        }

        public static RowOutcome failed(String code, String message) {
            return failed(code, message, 0);
        }

        /** A row refused, still consuming {@code writeCapacityUnits} (a failed condition does). */
        public static RowOutcome failed(String code, String message, long writeCapacityUnits) {
            return new RowOutcome(
                    Optional.of(code), message == null ? "" : message, writeCapacityUnits);
        }

        public boolean ok() {
            return errorCode.isEmpty();
        }
    }

    /**
     * Sends one BatchWriteRow request of {@code rows} (distinct keys, within the service's limits)
     * to {@code table}, without conditions.
     *
     * @return one outcome per row, in the order of {@code rows}
     * @throws WriteRequestException when the request as a whole fails
     */
    List<RowOutcome> batchWrite(String table, List<RowWrite> rows);

    /**
     * The primary key of {@code table}, in schema order.
     *
     * @throws WriteRequestException when the table cannot be described (it does not exist, say)
     */
    List<KeyColumn> primaryKey(String table);

    @Override
    void close();
}

package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import java.nio.charset.StandardCharsets;

/**
 * The capacity units (CU) an answer reports, from the sizes of the rows it read and wrote, as the
 * service's "Read and write throughput" page and its API references describe them: one CU per 4 KB
 * started, at least one for each row an operation touches.
 *
 * <p>A size is the sum of the primary-key columns and the attribute columns concerned, each column
 * counted as the UTF-8 bytes of its name plus its value: the UTF-8 bytes of a string, the bytes of
 * a binary, 8 for an integer or a double, 1 for a boolean. Timestamps are not counted (unlike the
 * SDK's {@code Column.getDataSize()}, which adds 8 for a set timestamp).
 */
final class CapacityUnits {

    /** The data one capacity unit reads or writes. */
    static final int UNIT_BYTES = 4096;

    /** What an answer reports: read and write capacity units. */
    record Consumed(int read, int write) {

        /** A write whose condition did not hold: the check read the row, the write was refused. */
        static final Consumed CONDITION_FAILED = new Consumed(1, 1);
    }

    private CapacityUnits() {}

    /** Capacity units for {@code bytes} of data: 4 KB each, started units counted, at least 1. */
    static int units(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("A data size cannot be negative, got " + bytes);
        }
        return (int) Math.max(1, (bytes + UNIT_BYTES - 1) / UNIT_BYTES);
    }

    /** The size of a primary key: each column's name and value. */
    static long keyBytes(PrimaryKey key) {
        long bytes = 0;
        for (PrimaryKeyColumn column : key.getPrimaryKeyColumns()) {
            bytes += nameBytes(column.getName()) + column.getValue().getDataSize();
        }
        return bytes;
    }

    /** The size of an attribute column: its name and its value, not its timestamp. */
    static long columnBytes(Column column) {
        return nameBytes(column.getName()) + column.getValue().getDataSize();
    }

    /**
     * The size of one cell of a write: a put counts its name and value; a delete of one version or
     * of all versions counts only the name.
     */
    static long cellBytes(RecordColumn cell) {
        return cell.getColumnType() == RecordColumn.ColumnType.PUT
                ? columnBytes(cell.getColumn())
                : nameBytes(cell.getColumn().getName());
    }

    private static int nameBytes(String name) {
        return name.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The size of a row read: its primary key and the columns read. */
    static long rowBytes(PrimaryKey key, Iterable<Column> columns) {
        long bytes = keyBytes(key);
        for (Column column : columns) {
            bytes += columnBytes(column);
        }
        return bytes;
    }

    /**
     * What a write that was applied consumes. Write units: its primary key and cells (a delete, its
     * primary key alone). Read units: none when it has no condition to check (existence {@code
     * IGNORE} and no column condition); otherwise the check read the row: its primary key's size.
     */
    static Consumed ofWrite(RowWrite write) {
        long written = keyBytes(write.primaryKey());
        for (RecordColumn cell : write.cells()) {
            written += cellBytes(cell);
        }
        boolean checked =
                write.condition().existence() != RowExistenceExpectation.IGNORE
                        || write.condition().columns().isPresent();
        int read = checked ? units(keyBytes(write.primaryKey())) : 0;
        return new Consumed(read, units(written));
    }

    /**
     * What a read consumes: {@code bytesRead} is the size of the rows read (their primary keys and
     * the columns read); a read of no row, or of rows smaller than 4 KB together, costs 1.
     */
    static Consumed ofRead(long bytesRead) {
        return new Consumed(units(bytesRead), 0);
    }
}

package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.util.List;
import java.util.Objects;

/**
 * One change of one row, as read from a channel.
 *
 * @param action whether the row was put, updated or deleted
 * @param primaryKey the row's primary key, in schema order
 * @param columns the attribute columns the change carries (all of them for a PUT, the touched ones
 *     for an UPDATE, none for a DELETE)
 * @param sequence the server's ordering of this change
 * @param channelId the channel the change was read from
 * @param before the before-image: the values the row held before the change in the table's stream
 *     origin columns (those it held, each a {@code PUT} with its version), when the record carried
 *     them; empty when the table's stream names no origin columns, the row did not exist, or it
 *     held none of them
 * @param table the table the change was made in, as the source that read it names it; empty when
 *     the reader did not say
 */
@PublicEvolving
public record ChangeRecord(
        Action action,
        List<PrimaryKeyColumn> primaryKey,
        List<ColumnChange> columns,
        SequenceInfo sequence,
        String channelId,
        List<ColumnChange> before,
        String table) {

    /** A change without its table's name. */
    public ChangeRecord(
            Action action,
            List<PrimaryKeyColumn> primaryKey,
            List<ColumnChange> columns,
            SequenceInfo sequence,
            String channelId,
            List<ColumnChange> before) {
        this(action, primaryKey, columns, sequence, channelId, before, "");
    }

    /** A change without a before-image. */
    public ChangeRecord(
            Action action,
            List<PrimaryKeyColumn> primaryKey,
            List<ColumnChange> columns,
            SequenceInfo sequence,
            String channelId) {
        this(action, primaryKey, columns, sequence, channelId, List.of());
    }

    /** This change, read from {@code name}. */
    public ChangeRecord withTable(String name) {
        return new ChangeRecord(action, primaryKey, columns, sequence, channelId, before, name);
    }

    /** What happened to the row. */
    public enum Action {
        PUT,
        UPDATE,
        DELETE
    }

    /** One primary-key column. */
    public record PrimaryKeyColumn(String name, CellValue value) {
        public PrimaryKeyColumn {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    /** What happened to one attribute column. */
    public enum ColumnOperation {
        PUT,
        DELETE_ONE_VERSION,
        DELETE_ALL_VERSION
    }

    /**
     * One attribute column of a change.
     *
     * @param name column name
     * @param operation what the change did to it
     * @param value the new value for {@code PUT}, {@code null} for deletes
     * @param timestampMillis the cell version; the deleted version for {@code DELETE_ONE_VERSION},
     *     0 when the server sends none
     */
    public record ColumnChange(
            String name, ColumnOperation operation, CellValue value, long timestampMillis) {
        public ColumnChange {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(operation, "operation");
            if ((operation == ColumnOperation.PUT) != (value != null)) {
                throw new IllegalArgumentException(
                        "Column " + name + ": a PUT carries a value and a delete carries none");
            }
        }
    }

    public ChangeRecord {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(sequence, "sequence");
        Objects.requireNonNull(channelId, "channelId");
        Objects.requireNonNull(table, "table");
        primaryKey = List.copyOf(primaryKey);
        columns = List.copyOf(columns);
        before = List.copyOf(before);
        for (ColumnChange c : before) {
            if (c.operation() != ColumnOperation.PUT) {
                throw new IllegalArgumentException(
                        "Before-image column " + c.name() + " must be a PUT with its value");
            }
        }
        if (primaryKey.isEmpty()) {
            throw new IllegalArgumentException("A change record needs a primary key");
        }
    }

    /** The commit time of the change in microseconds since the epoch (0 when unknown). */
    public long commitTimestampMicros() {
        return sequence.timestampMicros();
    }
}

package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;

/**
 * Receives one change part by part, in the order of {@link ChangeRecord}'s fields: the same content
 * a {@link ChangeRecord} would hold, without the objects. Engine row converters implement it to
 * write rows straight from a response; the {@link Cell} views passed in are valid only during the
 * call.
 */
@Internal
public interface ChangeVisitor {

    /**
     * The change begins.
     *
     * @param columnCount how many {@link #column} calls follow
     * @param sequence the server's ordering of the change ({@link SequenceInfo#NONE} when absent)
     */
    void begin(Action action, int columnCount, SequenceInfo sequence, String channelId);

    /** The primary-key column at {@code position} (schema order). */
    void primaryKey(int position, String name, Cell value);

    /**
     * The attribute column at {@code index} of the change.
     *
     * @param value the new value for {@code PUT}, {@code null} for deletes
     * @param timestampMillis the cell version, 0 when the server sends none
     */
    void column(
            int index, String name, ColumnOperation operation, Cell value, long timestampMillis);

    /**
     * The column at {@code index} of the change's before-image ({@link ChangeRecord#before()}),
     * after every {@link #column} call; not called for a change without one. Visitors that do not
     * read before-images ignore it.
     *
     * @param beforeCount how many before-image columns the change carries
     * @param timestampMillis the version the row held, 0 when the server sends none
     */
    default void before(
            int index, int beforeCount, String name, Cell value, long timestampMillis) {}
}

package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import org.apache.flink.annotation.Internal;

/**
 * A deserializer's fast path: writes the output for one change straight from the tunnel response,
 * part by part, without a materialised {@link ChangeRecord}. It handles the common case only; for a
 * change it cannot write (a value that does not fit, which the deserializer's own {@code
 * deserialize} names) {@link #finish()} returns null, and the source passes the materialised change
 * to {@code deserialize}, which gives the same output or the same error.
 *
 * <p>{@link #begin} starts a change afresh: what a change that failed part way through its visit
 * left is discarded then. One writer per reader, used by one thread.
 *
 * @param <T> the type the source produces
 */
@Internal
public interface ChangeWriter<T> extends ChangeVisitor {

    /**
     * The table of the changes visited from now on, called before a change's visit whenever the
     * table differs from the last one's (the source's tables, one after another). Writers that do
     * not write the table ignore it.
     */
    default void table(String name) {}

    /** The action of the change visited last. */
    ChangeRecord.Action action();

    /** The output for the change visited last, or null when {@code deserialize} must handle it. */
    T finish();
}

package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The records of one {@code readRecords} response, in channel order, converted only when asked for:
 * a reader converts the records it delivers on its own thread (a record skipped or only counted is
 * never converted), either into a {@link ChangeRecord} or straight into an engine row through a
 * {@link ChangeVisitor}. Both give the same content.
 */
@Internal
public interface RecordPage {

    int size();

    /** The record at {@code index} as a {@link ChangeRecord}, converted afresh on each call. */
    ChangeRecord record(int index);

    /** The ordering of the record at {@code index}, without converting the rest of it. */
    SequenceInfo sequence(int index);

    /** Passes the record at {@code index} to {@code visitor}, part by part. */
    void visit(int index, ChangeVisitor visitor);

    /** The records as a list, each converted when it is read. */
    default List<ChangeRecord> asList() {
        return new Records(this);
    }

    /** A page of records already converted. */
    static RecordPage of(List<ChangeRecord> records) {
        return new ConvertedPage(List.copyOf(records));
    }

    /** The list view of a page. */
    final class Records extends AbstractList<ChangeRecord> implements RandomAccess {
        private final RecordPage page;

        private Records(RecordPage page) {
            this.page = page;
        }

        @Override
        public ChangeRecord get(int index) {
            return page.record(index);
        }

        @Override
        public int size() {
            return page.size();
        }
    }
}

package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * A change record with the channel position right after it, so that the emitter can advance the
 * split state record by record (a checkpoint may fall between any two records).
 *
 * @param record the change
 * @param after where reading resumes once this record is emitted
 */
@Internal
public record PositionedRecord(ChangeRecord record, ChannelPosition after) {

    public PositionedRecord {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(after, "after");
    }
}

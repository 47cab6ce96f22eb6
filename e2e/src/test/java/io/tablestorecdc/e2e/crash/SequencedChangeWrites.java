package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.e2e.flink.OrderChangeWrites;
import io.tablestorecdc.flink.sink.RowWriteConverter;
import java.util.Optional;

/** A sequenced order change as {@code TablestoreSink} writes it: at its change's sequence. */
final class SequencedChangeWrites implements RowWriteConverter<SequencedChange> {

    private static final long serialVersionUID = 1L;

    @Override
    public Optional<RowWrite> convert(SequencedChange c) {
        return Optional.of(
                OrderChangeWrites.write(
                        c.change, new SequenceInfo(c.epoch, c.change.commitMicros, c.rowIndex)));
    }
}

package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.write.CdcChange;
import io.tablestorecdc.checkpoint.write.RowWrite;
import java.io.Serializable;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Turns an input element of {@link TablestoreSink} into the row change to write, or none (the
 * element is dropped).
 *
 * @param <IN> the sink's input type
 */
@PublicEvolving
@FunctionalInterface
public interface RowWriteConverter<IN> extends Serializable {

    Optional<RowWrite> convert(IN element);

    /** Change records of the {@code tablestore-cdc} source, each applied as what it was. */
    static RowWriteConverter<ChangeRecord> changeRecords() {
        return record -> Optional.of(CdcChange.fromRecord(record));
    }

    /** Elements that are row changes already. */
    static RowWriteConverter<RowWrite> identity() {
        return Optional::of;
    }
}

package io.tablestorecdc.flink.source.deserializer;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import java.io.Serializable;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;

/**
 * Turns a change record into zero or more output records of type {@code T}.
 *
 * <p>Runs inside the reader, so SDK objects never reach Flink serialization; the output type should
 * be one Flink serializes without Kryo (a POJO, a tuple, {@code RowData}, a String).
 *
 * @param <T> the type the source produces
 */
@PublicEvolving
public interface ChangeRecordDeserializer<T> extends Serializable, ResultTypeQueryable<T> {

    /** Called once per reader before the first record. */
    default void open(DeserializationSchema.InitializationContext context) throws Exception {}

    /**
     * Emits the records for one change.
     *
     * @throws InvalidChangeRecordException when the change does not fit {@code T}; the source
     *     fails, or with {@code skip.invalid.data} skips and counts it
     */
    void deserialize(ChangeRecord record, Collector<T> out) throws InvalidChangeRecordException;

    /**
     * A writer of this deserializer's output straight from the tunnel response, if it has one (the
     * built-in {@link RowDataChangeRecordDeserializer} does); without one, each change is
     * materialised for {@link #deserialize}. Called once per reader, after {@link #open}.
     */
    @Internal
    default Optional<ChangeWriter<T>> changeWriter() {
        return Optional.empty();
    }
}

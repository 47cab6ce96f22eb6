package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deserializes each change record into the output (with the commit time as the record timestamp),
 * applies {@code ignore.delete} and {@code skip.invalid.data}, and advances the split's position.
 */
@Internal
public final class ChangeRecordEmitter<T>
        implements RecordEmitter<PositionedRecord, T, ChannelSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeRecordEmitter.class);

    private final ChangeRecordDeserializer<T> deserializer;
    private final boolean ignoreDelete;
    private final boolean skipInvalidData;
    private final Counter skippedRecords;
    private final OutputCollector<T> collector = new OutputCollector<>();

    public ChangeRecordEmitter(
            ChangeRecordDeserializer<T> deserializer,
            boolean ignoreDelete,
            boolean skipInvalidData,
            Counter skippedRecords) {
        this.deserializer = deserializer;
        this.ignoreDelete = ignoreDelete;
        this.skipInvalidData = skipInvalidData;
        this.skippedRecords = skippedRecords;
    }

    @Override
    public void emitRecord(
            PositionedRecord element, SourceOutput<T> output, ChannelSplitState splitState) {
        ChangeRecord record = element.record();
        if (!(ignoreDelete && record.action() == ChangeRecord.Action.DELETE)) {
            collector.output = output;
            collector.timestampMillis = record.commitTimestampMicros() / 1000;
            deserialize(record);
        }
        splitState.advanceTo(element.after());
    }

    private void deserialize(ChangeRecord record) {
        try {
            deserializer.deserialize(record, collector);
        } catch (InvalidChangeRecordException e) {
            if (!skipInvalidData) {
                throw new FlinkRuntimeException(
                        "Invalid change record in channel "
                                + record.channelId()
                                + ": "
                                + e.getMessage(),
                        e);
            }
            skippedRecords.inc();
            LOG.warn(
                    "Skipping invalid change record in channel {}: {}",
                    record.channelId(),
                    e.getMessage());
        }
    }

    /** Forwards to the current split output with the change's commit time. */
    private static final class OutputCollector<T> implements Collector<T> {
        private SourceOutput<T> output;
        private long timestampMillis;

        @Override
        public void collect(T record) {
            if (timestampMillis > 0) {
                output.collect(record, timestampMillis);
            } else {
                output.collect(record);
            }
        }

        @Override
        public void close() {}
    }
}

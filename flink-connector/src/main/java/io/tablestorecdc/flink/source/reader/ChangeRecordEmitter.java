package io.tablestorecdc.flink.source.reader;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.ChangeWriter;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import java.util.Optional;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each change into the output (with the commit time as the record timestamp), applies {@code
 * ignore.delete} and {@code skip.invalid.data}, and advances the split's position.
 *
 * <p>When the deserializer has a {@link ChangeWriter} (the built-in RowData one does), the change
 * is written straight from the response; a change the writer leaves to the deserializer, and every
 * change for a deserializer without a writer, is materialised as a {@link ChangeRecord} first.
 */
@Internal
public final class ChangeRecordEmitter<T>
        implements RecordEmitter<ChannelRecord, T, ChannelSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeRecordEmitter.class);

    private final ChangeRecordDeserializer<T> deserializer;
    private final Optional<ChangeWriter<T>> writer;
    private final boolean ignoreDelete;
    private final boolean skipInvalidData;
    private final Counter skippedRecords;
    private final OutputCollector<T> collector = new OutputCollector<>();
    private final String oneTable;
    private final Function<String, Counter> tableRecords;
    private String writerTable;
    private String countedTable;
    private Counter countedRecords;

    /** An emitter of a source of one table whose name the emitter does not know (tests). */
    public ChangeRecordEmitter(
            ChangeRecordDeserializer<T> deserializer,
            boolean ignoreDelete,
            boolean skipInvalidData,
            Counter skippedRecords) {
        this(deserializer, ignoreDelete, skipInvalidData, skippedRecords, "");
    }

    /**
     * @param oneTable the table of a source of one table, which its splits do not name; a split of
     *     a source of several tables names its own
     */
    public ChangeRecordEmitter(
            ChangeRecordDeserializer<T> deserializer,
            boolean ignoreDelete,
            boolean skipInvalidData,
            Counter skippedRecords,
            String oneTable) {
        this(deserializer, ignoreDelete, skipInvalidData, skippedRecords, oneTable, t -> null);
    }

    /**
     * As above, counting each change of a source of several tables in {@code tableRecords} of its
     * table (asked once per table and table switch; null: not counted).
     */
    public ChangeRecordEmitter(
            ChangeRecordDeserializer<T> deserializer,
            boolean ignoreDelete,
            boolean skipInvalidData,
            Counter skippedRecords,
            String oneTable,
            Function<String, Counter> tableRecords) {
        this.oneTable = oneTable;
        this.tableRecords = tableRecords;
        this.deserializer = deserializer;
        this.writer = deserializer.changeWriter();
        this.ignoreDelete = ignoreDelete;
        this.skipInvalidData = skipInvalidData;
        this.skippedRecords = skippedRecords;
    }

    @Override
    public void emitRecord(
            ChannelRecord element, SourceOutput<T> output, ChannelSplitState splitState) {
        collector.output = output;
        collector.timestampMillis = element.commitTimestampMicros() / 1000;
        String table = splitState.tableOr(oneTable);
        if (splitState.namesTable()) {
            countIn(table);
        }
        if (writer.isPresent()) {
            write(element, writer.get(), table);
        } else {
            deserialize(materialise(element, table));
        }
        splitState.advanceTo(element.positionAfter());
    }

    private void countIn(String table) {
        if (!table.equals(countedTable)) {
            countedTable = table;
            countedRecords = tableRecords.apply(table);
        }
        if (countedRecords != null) {
            countedRecords.inc();
        }
    }

    /** Writes the change through the writer, or leaves it to the deserializer when it must. */
    private void write(ChannelRecord element, ChangeWriter<T> changeWriter, String table) {
        if (!table.equals(writerTable)) {
            changeWriter.table(table);
            writerTable = table;
        }
        try {
            element.visit(changeWriter); // a visit that fails part way emits nothing
        } catch (RuntimeException e) {
            throw unreadable(element, e);
        }
        if (ignoreDelete && changeWriter.action() == ChangeRecord.Action.DELETE) {
            return;
        }
        T row = changeWriter.finish();
        if (row != null) {
            collector.collect(row);
        } else {
            deserialize(materialise(element, table));
        }
    }

    private static ChangeRecord materialise(ChannelRecord element, String table) {
        try {
            return element.record().withTable(table);
        } catch (RuntimeException e) {
            throw unreadable(element, e);
        }
    }

    /** A record the server sent malformed: the job fails naming where it is. */
    private static FlinkRuntimeException unreadable(ChannelRecord element, RuntimeException e) {
        return new FlinkRuntimeException(
                "Could not read the change record of channel "
                        + element.channelId()
                        + " that ends at position "
                        + element.positionAfter()
                        + ": "
                        + e.getMessage(),
                e);
    }

    private void deserialize(ChangeRecord record) {
        if (ignoreDelete && record.action() == ChangeRecord.Action.DELETE) {
            return;
        }
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

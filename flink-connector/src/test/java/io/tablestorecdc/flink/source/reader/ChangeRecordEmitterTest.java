package io.tablestorecdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class ChangeRecordEmitterTest {

    private final TestingReaderOutput<String> output = new TestingReaderOutput<>();
    private final ChannelSplitState state =
            new ChannelSplitState(
                    new ChannelSplit("a", ChannelType.STREAM, ChannelPosition.at("a@0")));
    private final SimpleCounter skipped = new SimpleCounter();

    @Test
    void emitsAndAdvancesThePosition() {
        emitter(new RecordStrings(), false, false)
                .emitRecord(record(ChangeRecord.Action.PUT, "a@0", 1), output, state);

        assertThat(output.getEmittedRecords()).containsExactly("PUT id=1");
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 1));
    }

    @Test
    void ignoreDeleteDropsDeletionsButStillAdvances() {
        emitter(new RecordStrings(), true, false)
                .emitRecord(record(ChangeRecord.Action.DELETE, "a@0", 1), output, state);

        assertThat(output.getEmittedRecords()).isEmpty();
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 1));
    }

    @Test
    void invalidRecordsFailTheJobWithTheFixOrAreSkippedAndCounted() {
        assertThatThrownBy(
                        () ->
                                emitter(new Invalid(), false, false)
                                        .emitRecord(
                                                record(ChangeRecord.Action.PUT, "a@0", 1),
                                                output,
                                                state))
                .hasMessageContaining("Invalid change record in channel a")
                .hasMessageContaining("does not fit");

        emitter(new Invalid(), false, true)
                .emitRecord(record(ChangeRecord.Action.PUT, "a@0", 2), output, state);
        assertThat(skipped.getCount()).isEqualTo(1);
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 2));
    }

    private ChangeRecordEmitter<String> emitter(
            ChangeRecordDeserializer<String> deserializer, boolean ignoreDelete, boolean skip) {
        return new ChangeRecordEmitter<>(deserializer, ignoreDelete, skip, skipped);
    }

    private static PositionedRecord record(ChangeRecord.Action action, String token, long after) {
        ChangeRecord change =
                new ChangeRecord(
                        action,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(1))),
                        List.of(),
                        new SequenceInfo(1, 5_000_000L, 0),
                        "a");
        return new PositionedRecord(change, ChannelPosition.at(token, after));
    }

    private static final class Invalid implements ChangeRecordDeserializer<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ChangeRecord record, Collector<String> out)
                throws InvalidChangeRecordException {
            throw new InvalidChangeRecordException("column x does not fit");
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }
}

package io.tablestorecdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.read.ChannelResponse;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import io.tablestorecdc.flink.source.deserializer.RowDataChangeRecordDeserializer;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitState;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class ChangeRecordEmitterTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {new BigIntType(false), new IntType()},
                    new String[] {"id", "qty"});

    private final TestingReaderOutput<String> output = new TestingReaderOutput<>();
    private final ChannelSplitState state =
            new ChannelSplitState(
                    new ChannelSplit("a", ChannelType.STREAM, ChannelPosition.at("a@0")));
    private final SimpleCounter skipped = new SimpleCounter();

    @Test
    void emitsAndAdvancesThePosition() {
        emitter(new RecordStrings(), false, false)
                .emitRecord(record(ChangeRecord.Action.PUT, 1), output, state);

        assertThat(output.getEmittedRecords()).containsExactly("PUT id=1");
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 1));
    }

    @Test
    void ignoreDeleteDropsDeletionsButStillAdvances() {
        emitter(new RecordStrings(), true, false)
                .emitRecord(record(ChangeRecord.Action.DELETE, 1), output, state);

        assertThat(output.getEmittedRecords()).isEmpty();
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 1));
    }

    @Test
    void invalidRecordsFailTheJobWithTheFixOrAreSkippedAndCounted() {
        assertThatThrownBy(
                        () ->
                                emitter(new Invalid(), false, false)
                                        .emitRecord(
                                                record(ChangeRecord.Action.PUT, 1), output, state))
                .hasMessageContaining("Invalid change record in channel a")
                .hasMessageContaining("does not fit");

        emitter(new Invalid(), false, true)
                .emitRecord(record(ChangeRecord.Action.PUT, 2), output, state);
        assertThat(skipped.getCount()).isEqualTo(1);
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0", 2));
    }

    @Test
    void theRowDataDeserializersRowsAreWrittenStraightFromTheResponseWithTheCommitTime() {
        TestingReaderOutput<RowData> rows = new TestingReaderOutput<>();
        ChangeRecordEmitter<RowData> emitter = rowDataEmitter(true, false);
        ChannelResponse response =
                response(
                        change(ChangeRecord.Action.PUT, 1, CellValue.ofInteger(10)),
                        change(ChangeRecord.Action.DELETE, 2, CellValue.ofInteger(0)),
                        change(ChangeRecord.Action.UPDATE, 3, CellValue.ofInteger(30)));

        for (int i = 0; i < 3; i++) {
            emitter.emitRecord(new ChannelRecord(response, i), rows, state);
        }

        assertThat(rows.getEmittedRecords())
                .extracting(r -> r.getRowKind() + " " + r.getLong(0) + " " + r.getInt(1))
                .containsExactly("INSERT 1 10", "UPDATE_AFTER 3 30");
        assertThat(CountingPage.materialised).as("no change materialised").isZero();
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@3"));
    }

    @Test
    void withTheRowDataWriterInvalidRecordsStillFailNamingTheColumnOrAreSkippedAndCounted() {
        ChannelResponse response =
                response(
                        change(ChangeRecord.Action.PUT, 1, CellValue.ofString("x")),
                        change(ChangeRecord.Action.PUT, 2, CellValue.ofInteger(20)));
        TestingReaderOutput<RowData> rows = new TestingReaderOutput<>();

        assertThatThrownBy(
                        () ->
                                rowDataEmitter(false, false)
                                        .emitRecord(new ChannelRecord(response, 0), rows, state))
                .hasMessageContaining("Invalid change record in channel a")
                .hasMessageContaining("Column 'qty'")
                .hasMessageContaining("skip.invalid.data=true");

        ChangeRecordEmitter<RowData> skipping = rowDataEmitter(false, true);
        skipping.emitRecord(new ChannelRecord(response, 0), rows, state);
        skipping.emitRecord(new ChannelRecord(response, 1), rows, state);
        assertThat(skipped.getCount()).isEqualTo(1);
        assertThat(rows.getEmittedRecords()).extracting(r -> r.getInt(1)).containsExactly(20);
    }

    @Test
    void aRecordThatFailsPartWayThroughItsVisitEmitsNothingAndFailsNamingTheChannel() {
        ChangeRecord good = change(ChangeRecord.Action.PUT, 2, CellValue.ofInteger(20));
        RecordPage page = new FailingFirstPage(good);
        ChannelResponse response =
                ChannelResponse.of(
                        "a",
                        ChannelPosition.at("a@0"),
                        new ReadResult(page, ChannelPosition.at("a@2"), true),
                        Long.MAX_VALUE);
        TestingReaderOutput<RowData> rows = new TestingReaderOutput<>();
        ChangeRecordEmitter<RowData> emitter = rowDataEmitter(false, true);

        assertThatThrownBy(() -> emitter.emitRecord(new ChannelRecord(response, 0), rows, state))
                .hasMessageContaining("channel a")
                .hasMessageContaining("record 0 is damaged");
        assertThat(rows.getEmittedRecords()).isEmpty();
        assertThat(state.position()).isEqualTo(ChannelPosition.at("a@0"));

        emitter.emitRecord(new ChannelRecord(response, 1), rows, state);
        assertThat(rows.getEmittedRecords())
                .extracting(r -> r.getLong(0) + " " + r.getInt(1) + " " + r.getRowKind())
                .containsExactly("2 20 " + RowKind.INSERT);
    }

    private ChangeRecordEmitter<String> emitter(
            ChangeRecordDeserializer<String> deserializer, boolean ignoreDelete, boolean skip) {
        return new ChangeRecordEmitter<>(deserializer, ignoreDelete, skip, skipped);
    }

    private ChangeRecordEmitter<RowData> rowDataEmitter(boolean ignoreDelete, boolean skip) {
        return new ChangeRecordEmitter<>(
                new RowDataChangeRecordDeserializer(ROW, TypeInformation.of(RowData.class)),
                ignoreDelete,
                skip,
                skipped);
    }

    /** The change at index {@code after - 1} of a response of three read from a@0. */
    private static ChannelRecord record(ChangeRecord.Action action, int after) {
        ChangeRecord change =
                new ChangeRecord(
                        action,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(1))),
                        List.of(),
                        new SequenceInfo(1, 5_000_000L, 0),
                        "a");
        return new ChannelRecord(response(change, change, change), after - 1);
    }

    private static ChangeRecord change(ChangeRecord.Action action, long id, CellValue qty) {
        List<ChangeRecord.ColumnChange> columns =
                action == ChangeRecord.Action.DELETE
                        ? List.of()
                        : List.of(
                                new ChangeRecord.ColumnChange(
                                        "qty", ChangeRecord.ColumnOperation.PUT, qty, 0));
        return new ChangeRecord(
                action,
                List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(id))),
                columns,
                new SequenceInfo(1, 5_000_000L + id, 0),
                "a");
    }

    /** A response read from a@0 that ends at a@3, whose records count their materialisations. */
    private static ChannelResponse response(ChangeRecord... changes) {
        return ChannelResponse.of(
                "a",
                ChannelPosition.at("a@0"),
                new ReadResult(new CountingPage(List.of(changes)), ChannelPosition.at("a@3"), true),
                Long.MAX_VALUE);
    }

    /** A page that counts how often a change is materialised. */
    private static final class CountingPage implements RecordPage {
        static int materialised;
        private final RecordPage page;

        CountingPage(List<ChangeRecord> changes) {
            this.page = RecordPage.of(changes);
            materialised = 0;
        }

        @Override
        public int size() {
            return page.size();
        }

        @Override
        public ChangeRecord record(int index) {
            materialised++;
            return page.record(index);
        }

        @Override
        public SequenceInfo sequence(int index) {
            return page.sequence(index);
        }

        @Override
        public void visit(int index, ChangeVisitor visitor) {
            page.visit(index, visitor);
        }
    }

    /** A page whose first record is damaged after its key: its visit fails part way. */
    private static final class FailingFirstPage implements RecordPage {
        private final ChangeRecord good;

        FailingFirstPage(ChangeRecord good) {
            this.good = good;
        }

        @Override
        public int size() {
            return 2;
        }

        @Override
        public ChangeRecord record(int index) {
            if (index == 0) {
                throw new IllegalStateException("record 0 is damaged");
            }
            return good;
        }

        @Override
        public SequenceInfo sequence(int index) {
            return good.sequence();
        }

        @Override
        public void visit(int index, ChangeVisitor visitor) {
            if (index == 0) {
                visitor.begin(ChangeRecord.Action.PUT, 1, good.sequence(), "a");
                visitor.primaryKey(0, "id", CellValue.ofInteger(1));
                throw new IllegalStateException("record 0 is damaged");
            }
            RecordPage.of(List.of(good)).visit(0, visitor);
        }
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

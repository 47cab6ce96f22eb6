package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnType;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RecordSequenceInfo;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SdkRecordPageTest {

    private static final String CHANNEL = "ch-7";
    private static final String KEY_TEXT = "ü-日本-😀";
    private static final String TEXT = "héllo wörld ✓ 😀";
    private static final long TS = 1_700_000_000_123_456L;

    // The bytes the "server" sent, kept so that tests can check they arrive untouched.
    private final byte[] keyUtf8 = KEY_TEXT.getBytes(StandardCharsets.UTF_8);
    private final byte[] textUtf8 = TEXT.getBytes(StandardCharsets.UTF_8);

    private final List<StreamRecord> sdkRecords =
            List.of(
                    putOfEveryType(),
                    updateWithDeletes(),
                    record(StreamRecord.RecordType.DELETE, List.of(), null),
                    record(StreamRecord.RecordType.DELETE, null, new RecordSequenceInfo(4, 9L, 2)),
                    record(
                            StreamRecord.RecordType.PUT,
                            List.of(
                                    new RecordColumn(
                                            new Column("plain", ColumnValue.fromLong(5)),
                                            RecordColumn.ColumnType.PUT)),
                            new RecordSequenceInfo(4, 10L, 0)));

    private final SdkRecordPage page = new SdkRecordPage(sdkRecords, CHANNEL);

    @Test
    void visitingWithTheBuilderGivesTheRecordForEveryRecordOfThePage() {
        assertThat(page.size()).isEqualTo(sdkRecords.size());
        for (int i = 0; i < page.size(); i++) {
            ChangeRecordBuilder builder = new ChangeRecordBuilder();
            page.visit(i, builder);

            assertThat(builder.build()).as("record %d", i).isEqualTo(page.record(i));
            assertThat(page.sequence(i)).as("record %d", i).isEqualTo(page.record(i).sequence());
        }
    }

    @Test
    void aPutCarriesEveryValueTypeKeyOrderAndSequence() {
        ChangeRecord put = page.record(0);

        assertThat(put)
                .isEqualTo(
                        new ChangeRecord(
                                Action.PUT,
                                expectedKey(),
                                List.of(
                                        new ColumnChange(
                                                "s",
                                                ColumnOperation.PUT,
                                                CellValue.ofString(TEXT),
                                                1000),
                                        new ColumnChange(
                                                "i",
                                                ColumnOperation.PUT,
                                                CellValue.ofInteger(Long.MIN_VALUE),
                                                1001),
                                        new ColumnChange(
                                                "d",
                                                ColumnOperation.PUT,
                                                CellValue.ofDouble(-2.5),
                                                1002),
                                        new ColumnChange(
                                                "b",
                                                ColumnOperation.PUT,
                                                CellValue.ofBoolean(false),
                                                1003),
                                        new ColumnChange(
                                                "x",
                                                ColumnOperation.PUT,
                                                CellValue.ofBinary(new byte[] {0, -1, 7}),
                                                1004)),
                                new SequenceInfo(3, TS, 7),
                                CHANNEL));
    }

    @Test
    void updatesDeletesAndRecordsWithoutSequenceOrColumnsConvert() {
        assertThat(page.record(1).action()).isEqualTo(Action.UPDATE);
        assertThat(page.record(1).columns())
                .containsExactly(
                        new ColumnChange("a", ColumnOperation.PUT, CellValue.ofInteger(1), 5),
                        new ColumnChange("old", ColumnOperation.DELETE_ONE_VERSION, null, 4),
                        new ColumnChange("gone", ColumnOperation.DELETE_ALL_VERSION, null, 0));
        assertThat(page.sequence(1)).isEqualTo(new SequenceInfo(3, TS + 1, 0));

        assertThat(page.record(2).action()).isEqualTo(Action.DELETE);
        assertThat(page.record(2).columns()).isEmpty();
        assertThat(page.sequence(2)).isEqualTo(SequenceInfo.NONE);

        assertThat(page.record(3).columns()).isEmpty();
        assertThat(page.sequence(3)).isEqualTo(new SequenceInfo(4, 9L, 2));

        assertThat(page.record(4).columns())
                .containsExactly(
                        new ColumnChange("plain", ColumnOperation.PUT, CellValue.ofInteger(5), 0));
    }

    @Test
    void theVisitorSeesTheCountsAndTheServersUtf8Bytes() {
        List<String> calls = new ArrayList<>();
        List<byte[]> utf8 = new ArrayList<>();
        page.visit(
                0,
                new ChangeVisitor() {
                    @Override
                    public void begin(
                            Action action,
                            int columnCount,
                            SequenceInfo sequence,
                            String channelId) {
                        calls.add("begin " + action + " " + columnCount + " " + channelId);
                    }

                    @Override
                    public void primaryKey(int position, String name, Cell value) {
                        calls.add("pk " + position + " " + name + " " + value.type());
                        if (value.type() == CellValue.Type.STRING) {
                            utf8.add(value.utf8());
                        }
                    }

                    @Override
                    public void column(
                            int index,
                            String name,
                            ColumnOperation operation,
                            Cell value,
                            long timestampMillis) {
                        calls.add("col " + index + " " + name + " " + value.type());
                        if (value.type() == CellValue.Type.STRING) {
                            utf8.add(value.utf8());
                        }
                    }
                });

        assertThat(calls)
                .containsExactly(
                        "begin PUT 5 " + CHANNEL,
                        "pk 0 user STRING",
                        "pk 1 seq INTEGER",
                        "pk 2 tag BINARY",
                        "col 0 s STRING",
                        "col 1 i INTEGER",
                        "col 2 d DOUBLE",
                        "col 3 b BOOLEAN",
                        "col 4 x BINARY");
        assertThat(utf8).hasSize(2);
        assertThat(utf8.get(0)).isSameAs(keyUtf8);
        assertThat(utf8.get(1)).isSameAs(textUtf8);
    }

    @Test
    void aConvertedStringKeepsTheExactUtf8Bytes() {
        ChangeRecord put = page.record(0);

        CellValue key = put.primaryKey().get(0).value();
        CellValue text = put.columns().get(0).value();
        assertThat(key.asString()).isEqualTo(KEY_TEXT);
        assertThat(key.utf8()).isSameAs(keyUtf8);
        assertThat(text.asString()).isEqualTo(TEXT);
        assertThat(text.utf8()).isSameAs(textUtf8).isEqualTo(TEXT.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aStringWithoutServerBytesStillGivesItsUtf8() {
        StreamRecord sdk =
                record(
                        StreamRecord.RecordType.PUT,
                        List.of(
                                new RecordColumn(
                                        new Column("s", ColumnValue.fromString("ñ")),
                                        RecordColumn.ColumnType.PUT)),
                        null);

        CellValue value =
                new SdkRecordPage(List.of(sdk), CHANNEL).record(0).columns().get(0).value();

        assertThat(value.utf8()).containsExactly((byte) 0xC3, (byte) 0xB1);
    }

    @Test
    void recordsOfAPageShareColumnAndKeyNameInstances() {
        StreamRecord first = record(StreamRecord.RecordType.PUT, List.of(putLong("qty", 1)), null);
        StreamRecord second = record(StreamRecord.RecordType.PUT, List.of(putLong("qty", 2)), null);
        SdkRecordPage shared = new SdkRecordPage(List.of(first, second), CHANNEL);

        ChangeRecord a = shared.record(0);
        ChangeRecord b = shared.record(1);

        assertThat(b.columns().get(0).name()).isSameAs(a.columns().get(0).name());
        assertThat(b.primaryKey().get(0).name()).isSameAs(a.primaryKey().get(0).name());
    }

    @Test
    void theListViewAndAReadResultConvertTheSameRecords() {
        List<ChangeRecord> expected = new ArrayList<>();
        for (int i = 0; i < page.size(); i++) {
            expected.add(page.record(i));
        }

        assertThat(page.asList()).isEqualTo(expected);
        assertThat(new ReadResult(page, ChannelPosition.at("t"), false).records())
                .isEqualTo(expected);
    }

    static Stream<Arguments> malformedRecords() {
        return Stream.of(
                Arguments.of(
                        "no primary key",
                        (Consumer<StreamRecord>) r -> r.setPrimaryKey(new PrimaryKey()),
                        "without a primary key"),
                Arguments.of(
                        "null primary key",
                        (Consumer<StreamRecord>) r -> r.setPrimaryKey(null),
                        "without a primary key"),
                Arguments.of(
                        "no action",
                        (Consumer<StreamRecord>) r -> r.setRecordType(null),
                        "without an action type"),
                Arguments.of(
                        "a range marker in the key",
                        (Consumer<StreamRecord>)
                                r ->
                                        r.setPrimaryKey(
                                                new PrimaryKey(
                                                        List.of(
                                                                new PrimaryKeyColumn(
                                                                        "user",
                                                                        PrimaryKeyValue.INF_MIN)))),
                        "range marker"),
                Arguments.of(
                        "a PUT column without value",
                        (Consumer<StreamRecord>)
                                r ->
                                        r.setColumns(
                                                List.of(
                                                        new RecordColumn(
                                                                new ValuelessColumn("empty"),
                                                                RecordColumn.ColumnType.PUT))),
                        "without a value"),
                Arguments.of(
                        "an unsupported column type",
                        (Consumer<StreamRecord>)
                                r ->
                                        r.setColumns(
                                                List.of(
                                                        new RecordColumn(
                                                                new Column(
                                                                        "when",
                                                                        new ColumnValue(
                                                                                1L,
                                                                                ColumnType
                                                                                        .DATETIME)),
                                                                RecordColumn.ColumnType.PUT))),
                        "DATETIME"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRecords")
    void aMalformedRecordFailsOnReadAndOnVisitNamingTheChannel(
            String what, Consumer<StreamRecord> breakIt, String message) {
        StreamRecord bad = putOfEveryType();
        breakIt.accept(bad);
        SdkRecordPage mixed = new SdkRecordPage(List.of(updateWithDeletes(), bad), "ch-bad");

        assertThatThrownBy(() -> mixed.record(1))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_RESPONSE))
                .hasMessageContaining(message)
                .hasMessageContaining("ch-bad");
        assertThatThrownBy(() -> mixed.visit(1, new ChangeRecordBuilder()))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_RESPONSE))
                .hasMessageContaining(message)
                .hasMessageContaining("ch-bad");
        assertThat(mixed.record(0).action())
                .as("a bad record does not spoil its neighbours")
                .isEqualTo(Action.UPDATE);
    }

    /** A column whose value went missing, which the SDK's own constructor would refuse. */
    private static final class ValuelessColumn extends Column {
        ValuelessColumn(String name) {
            super(name, ColumnValue.fromLong(0));
        }

        @Override
        public ColumnValue getValue() {
            return null;
        }
    }

    private StreamRecord putOfEveryType() {
        return record(
                StreamRecord.RecordType.PUT,
                List.of(
                        put("s", ColumnValue.fromString(TEXT, textUtf8), 1000),
                        put("i", ColumnValue.fromLong(Long.MIN_VALUE), 1001),
                        put("d", ColumnValue.fromDouble(-2.5), 1002),
                        put("b", ColumnValue.fromBoolean(false), 1003),
                        put("x", ColumnValue.fromBinary(new byte[] {0, -1, 7}), 1004)),
                new RecordSequenceInfo(3, TS, 7));
    }

    private StreamRecord updateWithDeletes() {
        return record(
                StreamRecord.RecordType.UPDATE,
                List.of(
                        put("a", ColumnValue.fromLong(1), 5),
                        new RecordColumn(
                                new Column("old", ColumnValue.INTERNAL_NULL_VALUE, 4),
                                RecordColumn.ColumnType.DELETE_ONE_VERSION),
                        new RecordColumn(
                                new Column("gone", ColumnValue.INTERNAL_NULL_VALUE),
                                RecordColumn.ColumnType.DELETE_ALL_VERSION)),
                new RecordSequenceInfo(3, TS + 1, 0));
    }

    private List<ChangeRecord.PrimaryKeyColumn> expectedKey() {
        return List.of(
                new ChangeRecord.PrimaryKeyColumn("user", CellValue.ofString(KEY_TEXT)),
                new ChangeRecord.PrimaryKeyColumn("seq", CellValue.ofInteger(42)),
                new ChangeRecord.PrimaryKeyColumn("tag", CellValue.ofBinary(new byte[] {1, 2})));
    }

    private StreamRecord record(
            StreamRecord.RecordType type, List<RecordColumn> columns, RecordSequenceInfo seq) {
        StreamRecord record = new StreamRecord();
        record.setRecordType(type);
        record.setPrimaryKey(
                new PrimaryKey(
                        List.of(
                                new PrimaryKeyColumn(
                                        fresh("user"),
                                        PrimaryKeyValue.fromString(KEY_TEXT, keyUtf8)),
                                new PrimaryKeyColumn(fresh("seq"), PrimaryKeyValue.fromLong(42)),
                                new PrimaryKeyColumn(
                                        fresh("tag"),
                                        PrimaryKeyValue.fromBinary(new byte[] {1, 2})))));
        record.setColumns(columns);
        record.setSequenceInfo(seq);
        return record;
    }

    private static RecordColumn put(String name, ColumnValue value, long ts) {
        return new RecordColumn(new Column(name, value, ts), RecordColumn.ColumnType.PUT);
    }

    private static RecordColumn putLong(String name, long value) {
        return put(fresh(name), ColumnValue.fromLong(value), 1);
    }

    /** A name equal to {@code name} but not the same instance, as the SDK decodes each one. */
    private static String fresh(String name) {
        return new String(name.toCharArray());
    }
}

package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Versions of a cell in the table layer: what writes keep, what reads pick, what survives. */
class TableStoreVersionsTest {

    private static final String T = "versions";
    private static final PrimaryKey K =
            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                    .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("k"))
                    .build();

    private static TableStore storeKeeping(int maxVersions) throws EmulatorError {
        TableStore store = new TableStore();
        create(store, maxVersions);
        return store;
    }

    private static void create(TableStore store, int maxVersions) throws EmulatorError {
        TableMeta meta = new TableMeta(T);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        store.createTable(new TableDescription(meta, -1, maxVersions, Optional.of(24), 0));
    }

    private static RecordColumn put(String name, long value, long ts) {
        return new RecordColumn(
                new Column(name, ColumnValue.fromLong(value), ts), RecordColumn.ColumnType.PUT);
    }

    private static RecordColumn deleteOne(String name, long ts) {
        return new RecordColumn(
                new Column(name, ColumnValue.INTERNAL_NULL_VALUE, ts),
                RecordColumn.ColumnType.DELETE_ONE_VERSION);
    }

    private static RecordColumn deleteAll(String name) {
        return new RecordColumn(
                new Column(name, ColumnValue.INTERNAL_NULL_VALUE),
                RecordColumn.ColumnType.DELETE_ALL_VERSION);
    }

    private static void write(TableStore store, StreamRecord.RecordType type, RecordColumn... cells)
            throws EmulatorError {
        store.write(T, new RowWrite(type, K, List.of(cells), WriteCondition.IGNORE, false));
    }

    private static void update(TableStore store, RecordColumn... cells) throws EmulatorError {
        write(store, StreamRecord.RecordType.UPDATE, cells);
    }

    private static Optional<Row> read(TableStore store, ReadVersions versions)
            throws EmulatorError {
        return store.getRow(T, K, Set.of(), versions, Optional.empty()).row();
    }

    /** The row's cells as "name=value@ts", in the order the SDK's Row holds them. */
    private static List<String> cells(Optional<Row> row) {
        List<String> out = new ArrayList<>();
        row.ifPresent(
                r -> {
                    for (Column c : r.getColumns()) {
                        out.add(c.getName() + "=" + c.getValue().asLong() + "@" + c.getTimestamp());
                    }
                });
        return out;
    }

    @Test
    void keepsTheNewestMaxVersionsOfEachColumnWhateverTheWriteOrder() throws EmulatorError {
        TableStore store = storeKeeping(3);
        update(store, put("a", 30, 3000));
        update(store, put("a", 10, 1000), put("b", 1, 1000));
        update(store, put("a", 40, 4000));
        update(store, put("a", 20, 2000));

        assertThat(cells(read(store, ReadVersions.ALL)))
                .containsExactly("a=40@4000", "a=30@3000", "a=20@2000", "b=1@1000");
    }

    @Test
    void aVersionWrittenAgainWithItsTimestampIsReplaced() throws EmulatorError {
        TableStore store = storeKeeping(3);
        update(store, put("a", 1, 1000), put("a", 2, 2000));
        update(store, put("a", 3, 1000));

        assertThat(cells(read(store, ReadVersions.ALL))).containsExactly("a=2@2000", "a=3@1000");
    }

    @Test
    void aPutReplacesEveryVersionAndKeepsTheLastCellOfATimestamp() throws EmulatorError {
        TableStore store = storeKeeping(5);
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("b", 1, 1000));
        write(
                store,
                StreamRecord.RecordType.PUT,
                put("a", 7, 5000),
                put("a", 8, 5000),
                put("a", 6, 3000));

        assertThat(cells(read(store, ReadVersions.ALL))).containsExactly("a=8@5000", "a=6@3000");
    }

    @Test
    void deletingOneVersionLeavesTheOthers() throws EmulatorError {
        TableStore store = storeKeeping(3);
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("a", 3, 3000), put("b", 1, 1000));

        update(store, deleteOne("a", 2000));
        assertThat(cells(read(store, ReadVersions.ALL)))
                .containsExactly("a=3@3000", "a=1@1000", "b=1@1000");

        update(store, deleteOne("a", 2500));
        assertThat(cells(read(store, ReadVersions.ALL)))
                .as("a timestamp the column does not hold deletes nothing")
                .containsExactly("a=3@3000", "a=1@1000", "b=1@1000");

        update(store, deleteAll("a"));
        assertThat(cells(read(store, ReadVersions.ALL))).containsExactly("b=1@1000");

        update(store, deleteOne("b", 1000));
        assertThat(read(store, ReadVersions.ALL))
                .as("a row whose last version is deleted no longer exists")
                .isEmpty();
    }

    @Test
    void aReadPicksVersionsByCountAndTimeRange() throws EmulatorError {
        TableStore store = storeKeeping(10);
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("a", 3, 3000), put("b", 1, 1500));

        assertThat(cells(read(store, ReadVersions.NEWEST))).containsExactly("a=3@3000", "b=1@1500");
        assertThat(cells(read(store, new ReadVersions(2, 0, Long.MAX_VALUE))))
                .containsExactly("a=3@3000", "a=2@2000", "b=1@1500");
        assertThat(cells(read(store, new ReadVersions(Integer.MAX_VALUE, 1500, 3000))))
                .as("[start, end): the end is left out")
                .containsExactly("a=2@2000", "b=1@1500");
        assertThat(cells(read(store, new ReadVersions(1, 1000, 2500))))
                .as("the newest version in the range")
                .containsExactly("a=2@2000", "b=1@1500");
        assertThat(cells(read(store, new ReadVersions(1, 1000, 1001)))).containsExactly("a=1@1000");
        assertThat(read(store, new ReadVersions(1, 1001, 1002)))
                .as("a row with no version in the range reads as absent")
                .isEmpty();
    }

    @Test
    void aFilterComparesTheNewestVersionOrAnyVersion() throws Exception {
        TableStore store = storeKeeping(3);
        update(store, put("a", 1, 1000), put("a", 2, 2000));

        SingleColumnValueFilter onlyLatest =
                new SingleColumnValueFilter(
                        "a",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromLong(1));
        SingleColumnValueFilter anyVersion =
                new SingleColumnValueFilter(
                        "a",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromLong(1));
        anyVersion.setLatestVersionsOnly(false);

        assertThat(filtered(store, onlyLatest, ReadVersions.ALL)).isEmpty();
        assertThat(filtered(store, anyVersion, ReadVersions.ALL)).isPresent();
        assertThat(filtered(store, anyVersion, ReadVersions.NEWEST))
                .as("the filter sees the versions the read picks")
                .isEmpty();
    }

    private static Optional<Row> filtered(
            TableStore store, SingleColumnValueFilter filter, ReadVersions versions)
            throws EmulatorError {
        RowFilter parsed = RowFilter.parse(OTSProtocolBuilder.buildFilter(filter));
        return store.getRow(T, K, Set.of(), versions, Optional.of(parsed)).row();
    }

    @Test
    void loweringMaxVersionsDropsTheOldestAtOnceAndRaisingItBringsNoneBack() throws EmulatorError {
        TableStore store = storeKeeping(3);
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("a", 3, 3000));

        store.updateTable(T, t -> withMaxVersions(t, 1));
        assertThat(cells(read(store, ReadVersions.ALL))).containsExactly("a=3@3000");

        store.updateTable(T, t -> withMaxVersions(t, 3));
        update(store, put("a", 4, 4000));
        assertThat(cells(read(store, ReadVersions.ALL))).containsExactly("a=4@4000", "a=3@3000");
    }

    private static TableDescription withMaxVersions(TableDescription t, int maxVersions) {
        return new TableDescription(
                t.meta(),
                t.timeToLiveSeconds(),
                maxVersions,
                t.streamExpirationHours(),
                t.creationTimeMicros(),
                t.streamOriginColumns());
    }

    @Test
    void aSnapshotHoldsTheNewestVersionOfEachColumn() throws EmulatorError {
        TableStore store = storeKeeping(3);
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("b", 5, 500));

        List<Row> rows = store.snapshot(T, bound(true), bound(false));

        assertThat(rows).hasSize(1);
        assertThat(cells(Optional.of(rows.get(0)))).containsExactly("a=2@2000", "b=5@500");
    }

    private static PrimaryKey bound(boolean min) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", min ? PrimaryKeyValue.INF_MIN : PrimaryKeyValue.INF_MAX)
                .build();
    }

    @Test
    void theJournalBringsBackEveryVersionAfterARestart(@TempDir Path dir) throws Exception {
        TableStore before = new TableStore();
        before.recoverFrom(dir);
        create(before, 4);
        update(before, put("a", 1, 1000), put("a", 2, 2000), put("a", 3, 3000));
        update(before, put("a", 4, 4000), put("a", 5, 5000));
        update(before, deleteOne("a", 4000));
        before.updateTable(T, t -> withMaxVersions(t, 2));
        before.updateTable(T, t -> withMaxVersions(t, 4));
        update(before, put("a", 6, 6000));
        List<String> written = cells(read(before, ReadVersions.ALL));
        before.close();

        TableStore after = new TableStore();
        after.recoverFrom(dir);

        assertThat(written).containsExactly("a=6@6000", "a=5@5000", "a=3@3000");
        assertThat(cells(read(after, ReadVersions.ALL))).isEqualTo(written);
        after.close();
    }

    @Test
    void aReadMustNameMaxVersionsOrATimeRange() {
        OtsInternalApi.TimeRange none = OtsInternalApi.TimeRange.getDefaultInstance();
        OtsInternalApi.TimeRange at =
                OtsInternalApi.TimeRange.newBuilder().setSpecificTime(7).build();

        assertThatThrownBy(() -> ReadVersions.of(false, false, 0, false, none))
                .hasMessage("No version condition is specified.");
        assertThatThrownBy(() -> ReadVersions.of(true, false, 0, false, none))
                .hasMessage("No version condition is specified while querying row.");
        assertThatThrownBy(() -> ReadVersions.of(false, true, 0, false, none))
                .hasMessageContaining("max_versions must be positive");
        assertThatThrownBy(() -> ReadVersions.of(false, true, 2, true, at))
                .hasMessageContaining("leave max_versions out");
        assertThatThrownBy(
                        () ->
                                ReadVersions.of(
                                        false,
                                        false,
                                        0,
                                        true,
                                        OtsInternalApi.TimeRange.newBuilder()
                                                .setStartTime(5)
                                                .setEndTime(5)
                                                .build()))
                .hasMessageContaining("0 <= start < end");
    }

    @Test
    void aReadNamingBothBoundsTheRangeByCount() throws EmulatorError {
        OtsInternalApi.TimeRange range =
                OtsInternalApi.TimeRange.newBuilder().setStartTime(10).setEndTime(20).build();
        OtsInternalApi.TimeRange at =
                OtsInternalApi.TimeRange.newBuilder().setSpecificTime(7).build();

        assertThat(ReadVersions.of(false, true, 2, true, range))
                .isEqualTo(new ReadVersions(2, 10, 20));
        assertThat(ReadVersions.of(false, false, 0, true, range))
                .isEqualTo(new ReadVersions(Integer.MAX_VALUE, 10, 20));
        assertThat(ReadVersions.of(false, false, 0, true, at)).isEqualTo(new ReadVersions(1, 7, 8));
        assertThat(ReadVersions.of(false, true, 3, false, none()))
                .isEqualTo(new ReadVersions(3, 0, Long.MAX_VALUE));
    }

    private static OtsInternalApi.TimeRange none() {
        return OtsInternalApi.TimeRange.getDefaultInstance();
    }

    /** The change a version write hands the tunnel layer is the write as sent, stamped. */
    @Test
    void listenersSeeEachVersionWriteAsSent() throws EmulatorError {
        TableStore store = storeKeeping(2);
        List<RowChange> seen = new ArrayList<>();
        store.addListener(
                new TableAccess.TableListener() {
                    @Override
                    public void onTableCreated(TableMeta meta) {}

                    @Override
                    public void onTableDeleted(String table) {}

                    @Override
                    public void onRowChange(RowChange change) {
                        seen.add(change);
                    }
                });
        update(store, put("a", 1, 1000), put("a", 2, 2000), put("a", 3, 3000));
        update(store, deleteOne("a", 2000));

        assertThat(seen).hasSize(2);
        assertThat(seen.get(0).columns()).hasSize(3);
        RecordColumn deleted = seen.get(1).columns().get(0);
        assertThat(deleted.getColumnType()).isEqualTo(RecordColumn.ColumnType.DELETE_ONE_VERSION);
        assertThat(deleted.getColumn().getTimestamp()).isEqualTo(2000);
    }
}

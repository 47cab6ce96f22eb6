package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.TimeRange;
import com.alicloud.openservices.tablestore.model.UpdateRowRequest;
import com.alicloud.openservices.tablestore.model.UpdateTableRequest;
import com.alicloud.openservices.tablestore.model.condition.SingleColumnValueCondition;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Versions of a cell through the SDK, as the service keeps them: a table's max versions bounds the
 * versions of each column, reads pick versions by count and time range, one version can be deleted.
 * Timestamps are a minute before now, within the service's allowed clock deviation, so these calls
 * mean the same against the service.
 */
class VersionsITCase {

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** A version's timestamp: {@code T0 + i} seconds. */
    private static final long T0 = System.currentTimeMillis() - 60_000;

    private static long t(int i) {
        return T0 + i * 1000L;
    }

    private static String newTable(SyncClient client, int maxVersions) {
        String table = "versions" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, maxVersions)));
        return table;
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    private static Column version(String name, long value, int i) {
        return new Column(name, ColumnValue.fromLong(value), t(i));
    }

    /** Adds versions to row {@code id} (an UpdateRow: the row's other versions stay). */
    private static void addVersions(
            SyncClient client, String table, String id, Column... versions) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        for (Column v : versions) {
            change.put(v);
        }
        AppliedOnceWrites.update(client, change);
    }

    private static void deleteVersion(
            SyncClient client, String table, String id, String name, int i) {
        RowUpdateChange change = new RowUpdateChange(table, key(id));
        change.deleteColumn(name, t(i));
        AppliedOnceWrites.update(client, change);
    }

    private static Row getRow(SyncClient client, SingleRowQueryCriteria criteria) {
        return client.getRow(new GetRowRequest(criteria)).getRow();
    }

    private static SingleRowQueryCriteria newest(String table, String id, int maxVersions) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(table, key(id));
        criteria.setMaxVersions(maxVersions);
        return criteria;
    }

    /** The versions of {@code name}, newest first, as "value@i" (i = seconds after T0). */
    private static List<String> versions(Row row, String name) {
        return row.getColumn(name).stream()
                .map(c -> c.getValue().asLong() + "@" + (c.getTimestamp() - T0) / 1000)
                .toList();
    }

    @Test
    void aTableKeepsTheNewestMaxVersionsOfEachColumn() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2));
        addVersions(client, table, "r", version("a", 4, 4), version("b", 9, 1));
        addVersions(client, table, "r", version("a", 3, 3));
        addVersions(client, table, "r", version("a", 0, 0));

        Row row = getRow(client, newest(table, "r", Integer.MAX_VALUE));

        assertThat(versions(row, "a"))
                .as("the version older than the three kept is dropped as it is written")
                .containsExactly("4@4", "3@3", "2@2");
        assertThat(versions(row, "b")).containsExactly("9@1");
        assertThat(row.getLatestColumn("a").getValue().asLong()).isEqualTo(4);
    }

    @Test
    void aVersionWrittenAgainAtItsTimestampReplacesIt() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2));
        addVersions(client, table, "r", version("a", 10, 1));

        assertThat(versions(getRow(client, newest(table, "r", 10)), "a"))
                .containsExactly("2@2", "10@1");
    }

    @Test
    void aPutRowReplacesEveryVersionOfTheRow() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2), version("b", 1, 1));

        RowPutChange put = new RowPutChange(table, key("r"));
        put.addColumn(version("a", 5, 5));
        put.addColumn(version("a", 3, 3));
        AppliedOnceWrites.put(client, put);

        Row row = getRow(client, newest(table, "r", 3));
        assertThat(versions(row, "a")).containsExactly("5@5", "3@3");
        assertThat(row.contains("b")).isFalse();
    }

    @Test
    void readsReturnAtMostMaxVersionsNewestFirst() {
        SyncClient client = bed.sync();
        String table = newTable(client, 5);
        addVersions(
                client,
                table,
                "r",
                version("a", 1, 1),
                version("a", 2, 2),
                version("a", 3, 3),
                version("b", 7, 2));

        assertThat(versions(getRow(client, newest(table, "r", 1)), "a")).containsExactly("3@3");
        assertThat(versions(getRow(client, newest(table, "r", 2)), "a"))
                .containsExactly("3@3", "2@2");
        Row all = getRow(client, newest(table, "r", 5));
        assertThat(versions(all, "a")).containsExactly("3@3", "2@2", "1@1");
        assertThat(versions(all, "b")).containsExactly("7@2");

        MultiRowQueryCriteria batch = new MultiRowQueryCriteria(table);
        batch.addRow(key("r"));
        batch.setMaxVersions(2);
        BatchGetRowRequest batchGet = new BatchGetRowRequest();
        batchGet.addMultiRowQueryCriteria(batch);
        Row batched = client.batchGetRow(batchGet).getSucceedRows().get(0).getRow();
        assertThat(versions(batched, "a")).containsExactly("3@3", "2@2");

        RangeRowQueryCriteria range = wholeTable(table);
        range.setMaxVersions(2);
        List<Row> scanned = client.getRange(new GetRangeRequest(range)).getRows();
        assertThat(scanned).hasSize(1);
        assertThat(versions(scanned.get(0), "a")).containsExactly("3@3", "2@2");
    }

    private static RangeRowQueryCriteria wholeTable(String table) {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                        .build());
        range.setExclusiveEndPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                        .build());
        return range;
    }

    @Test
    void aTimeRangePicksTheVersionsWrittenInIt() {
        SyncClient client = bed.sync();
        String table = newTable(client, 5);
        addVersions(
                client,
                table,
                "r",
                version("a", 1, 1),
                version("a", 2, 2),
                version("a", 3, 3),
                version("b", 7, 3));

        SingleRowQueryCriteria at = new SingleRowQueryCriteria(table, key("r"));
        at.setTimeRange(new TimeRange(t(2), t(2) + 1));
        Row specific = getRow(client, at);
        assertThat(versions(specific, "a")).containsExactly("2@2");
        assertThat(specific.contains("b")).as("b has no version at that time").isFalse();

        SingleRowQueryCriteria between = new SingleRowQueryCriteria(table, key("r"));
        between.setTimeRange(new TimeRange(t(1), t(3)));
        assertThat(versions(getRow(client, between), "a"))
                .as("[start, end): the version at the end is left out")
                .containsExactly("2@2", "1@1");

        SingleRowQueryCriteria newestInRange = new SingleRowQueryCriteria(table, key("r"));
        newestInRange.setTimeRange(new TimeRange(t(1), t(3)));
        newestInRange.setMaxVersions(1);
        assertThat(versions(getRow(client, newestInRange), "a")).containsExactly("2@2");

        SingleRowQueryCriteria before = new SingleRowQueryCriteria(table, key("r"));
        before.setTimeRange(new TimeRange(t(-5), t(0)));
        assertThat(getRow(client, before)).as("no version in the range: no row").isNull();

        RangeRowQueryCriteria range = wholeTable(table);
        range.setTimeRange(new TimeRange(t(2), t(4)));
        List<Row> scanned = client.getRange(new GetRangeRequest(range)).getRows();
        assertThat(versions(scanned.get(0), "a")).containsExactly("3@3", "2@2");
    }

    @Test
    void aReadNamingNeitherMaxVersionsNorATimeRangeIsRefused() {
        SyncClient client = bed.sync();
        String table = newTable(client, 1);
        addVersions(client, table, "r", version("a", 1, 1));

        assertThatThrownBy(() -> getRow(client, new SingleRowQueryCriteria(table, key("r"))))
                .isInstanceOfSatisfying(
                        TableStoreException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo("OTSParameterInvalid"));
    }

    @Test
    void deletingOneVersionLeavesTheOthers() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2), version("a", 3, 3));

        deleteVersion(client, table, "r", "a", 2);
        assertThat(versions(getRow(client, newest(table, "r", 3)), "a"))
                .containsExactly("3@3", "1@1");

        deleteVersion(client, table, "r", "a", 3);
        Row row = getRow(client, newest(table, "r", 1));
        assertThat(versions(row, "a"))
                .as("deleting the newest version brings the one before it back to reads")
                .containsExactly("1@1");

        RowUpdateChange all = new RowUpdateChange(table, key("r"));
        all.put(version("b", 1, 1));
        all.deleteColumns("a");
        AppliedOnceWrites.update(client, all);
        Row after = getRow(client, newest(table, "r", 3));
        assertThat(after.contains("a")).isFalse();
        assertThat(versions(after, "b")).containsExactly("1@1");
    }

    @Test
    void aFilterComparesTheNewestVersionUnlessToldToCompareAny() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2));

        SingleRowQueryCriteria latest = newest(table, "r", 3);
        latest.setFilter(equalsOne(true));
        assertThat(getRow(client, latest)).as("the newest version is 2").isNull();

        SingleRowQueryCriteria any = newest(table, "r", 3);
        any.setFilter(equalsOne(false));
        assertThat(versions(getRow(client, any), "a")).containsExactly("2@2", "1@1");
    }

    private static SingleColumnValueFilter equalsOne(boolean latestVersionOnly) {
        SingleColumnValueFilter filter =
                new SingleColumnValueFilter(
                        "a",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromLong(1));
        filter.setLatestVersionsOnly(latestVersionOnly);
        return filter;
    }

    @Test
    void aColumnConditionComparesTheNewestVersionUnlessToldToCompareAny() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2));

        RowUpdateChange onLatest = new RowUpdateChange(table, key("r"));
        onLatest.put(version("c", 1, 1));
        onLatest.setCondition(conditionEqualsOne(true));
        assertThatThrownBy(() -> client.updateRow(new UpdateRowRequest(onLatest)))
                .isInstanceOfSatisfying(
                        TableStoreException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo("OTSConditionCheckFail"));

        RowUpdateChange onAny = new RowUpdateChange(table, key("r"));
        onAny.put(version("c", 1, 1));
        onAny.setCondition(conditionEqualsOne(false));
        client.updateRow(new UpdateRowRequest(onAny));
        assertThat(versions(getRow(client, newest(table, "r", 1)), "c")).containsExactly("1@1");
    }

    private static Condition conditionEqualsOne(boolean latestVersionOnly) {
        SingleColumnValueCondition column =
                new SingleColumnValueCondition(
                        "a",
                        SingleColumnValueCondition.CompareOperator.EQUAL,
                        ColumnValue.fromLong(1));
        column.setLatestVersionsOnly(latestVersionOnly);
        Condition condition = new Condition(RowExistenceExpectation.EXPECT_EXIST);
        condition.setColumnCondition(column);
        return condition;
    }

    @Test
    void loweringMaxVersionsLeavesTheNewestToReads() {
        SyncClient client = bed.sync();
        String table = newTable(client, 3);
        addVersions(client, table, "r", version("a", 1, 1), version("a", 2, 2), version("a", 3, 3));

        UpdateTableRequest lower = new UpdateTableRequest(table);
        TableOptions options = new TableOptions();
        options.setMaxVersions(1);
        lower.setTableOptionsForUpdate(options);
        client.updateTable(lower);

        assertThat(versions(getRow(client, newest(table, "r", 3)), "a")).containsExactly("3@3");
        addVersions(client, table, "r", version("a", 4, 4));
        assertThat(versions(getRow(client, newest(table, "r", 3)), "a")).containsExactly("4@4");
    }

    /** The emulator's own: versions are journaled with the writes and replayed at start. */
    @Test
    void versionsSurviveARestartWithADataDirectory(@TempDir Path dataDir) {
        String table;
        List<String> before;
        try (EmulatorBed first = EmulatorBed.start(TablestoreEmulator.builder().dataDir(dataDir))) {
            SyncClient client = first.sync();
            table = newTable(client, 3);
            addVersions(
                    client, table, "r", version("a", 1, 1), version("a", 2, 2), version("a", 3, 3));
            addVersions(client, table, "r", version("a", 4, 4));
            deleteVersion(client, table, "r", "a", 3);
            before = versions(getRow(client, newest(table, "r", 3)), "a");
        }
        assertThat(before).containsExactly("4@4", "2@2");

        try (EmulatorBed restarted =
                EmulatorBed.start(TablestoreEmulator.builder().dataDir(dataDir))) {
            assertThat(versions(getRow(restarted.sync(), newest(table, "r", 3)), "a"))
                    .isEqualTo(before);
        }
    }
}

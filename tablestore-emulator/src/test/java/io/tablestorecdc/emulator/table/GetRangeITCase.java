package io.tablestorecdc.emulator.table;

import static io.tablestorecdc.emulator.table.TableApiITCase.col;
import static io.tablestorecdc.emulator.table.TableApiITCase.errorOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.filter.SingleColumnValueFilter;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GetRange through the real SDK: order, both directions, limits, paging and INF bounds. */
class GetRangeITCase {

    private static final String TABLE = "ranges";

    /** Inserted out of order; "B" sorts before "a" bytewise, "é" (0xC3 0xA9) after "z". */
    private static final List<String> KEYS = List.of("b", "a", "é", "B", "z", "aa");

    private static final List<String> SORTED = List.of("B", "a", "aa", "b", "z", "é");

    static TablestoreEmulator emulator;
    static SyncClient client;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        client = emulator.newSyncClient();
        TableMeta meta = new TableMeta(TABLE);
        meta.addPrimaryKeyColumn("pk", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        for (String k : KEYS) {
            for (long n : new long[] {2, -1, 1}) {
                RowPutChange put = new RowPutChange(TABLE, key(k, n));
                put.addColumn(col("v", n));
                put.addColumn(new Column("name", ColumnValue.fromString(k)));
                client.putRow(new PutRowRequest(put));
            }
        }
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    private static PrimaryKey key(String pk, long n) {
        return key(PrimaryKeyValue.fromString(pk), PrimaryKeyValue.fromLong(n));
    }

    private static PrimaryKey key(PrimaryKeyValue pk, PrimaryKeyValue n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", pk)
                .addPrimaryKeyColumn("n", n)
                .build();
    }

    private static final PrimaryKey MIN = key(PrimaryKeyValue.INF_MIN, PrimaryKeyValue.INF_MIN);
    private static final PrimaryKey MAX = key(PrimaryKeyValue.INF_MAX, PrimaryKeyValue.INF_MAX);

    private static RangeRowQueryCriteria criteria(
            Direction direction, PrimaryKey start, PrimaryKey end) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(TABLE);
        criteria.setDirection(direction);
        criteria.setInclusiveStartPrimaryKey(start);
        criteria.setExclusiveEndPrimaryKey(end);
        criteria.setMaxVersions(1);
        return criteria;
    }

    private static GetRangeResponse range(RangeRowQueryCriteria criteria) {
        return client.getRange(new GetRangeRequest(criteria));
    }

    private static List<String> labels(List<Row> rows) {
        List<String> out = new ArrayList<>();
        for (Row r : rows) {
            out.add(
                    r.getPrimaryKey().getPrimaryKeyColumn("pk").getValue().asString()
                            + r.getPrimaryKey().getPrimaryKeyColumn("n").getValue().asLong());
        }
        return out;
    }

    private static List<String> expectedForward() {
        List<String> out = new ArrayList<>();
        for (String k : SORTED) {
            out.add(k + "-1");
            out.add(k + "1");
            out.add(k + "2");
        }
        return out;
    }

    @Test
    void forwardOverTheWholeTableIsInPrimaryKeyOrder() {
        GetRangeResponse response = range(criteria(Direction.FORWARD, MIN, MAX));

        assertThat(labels(response.getRows())).isEqualTo(expectedForward());
        assertThat(response.getNextStartPrimaryKey()).isNull();
    }

    @Test
    void backwardOverTheWholeTableIsInReverseOrder() {
        List<String> expected = new ArrayList<>(expectedForward());
        java.util.Collections.reverse(expected);

        GetRangeResponse response = range(criteria(Direction.BACKWARD, MAX, MIN));

        assertThat(labels(response.getRows())).isEqualTo(expected);
    }

    @Test
    void boundsAreInclusiveStartExclusiveEnd() {
        GetRangeResponse forward = range(criteria(Direction.FORWARD, key("a", 1), key("b", 1)));
        GetRangeResponse backward = range(criteria(Direction.BACKWARD, key("b", 1), key("a", 1)));

        assertThat(labels(forward.getRows()))
                .containsExactly("a1", "a2", "aa-1", "aa1", "aa2", "b-1");
        assertThat(labels(backward.getRows()))
                .containsExactly("b1", "b-1", "aa2", "aa1", "aa-1", "a2");
    }

    @Test
    void infBoundsOnTheSecondColumnSelectOneFirstColumnValue() {
        GetRangeResponse response =
                range(
                        criteria(
                                Direction.FORWARD,
                                key(PrimaryKeyValue.fromString("aa"), PrimaryKeyValue.INF_MIN),
                                key(PrimaryKeyValue.fromString("aa"), PrimaryKeyValue.INF_MAX)));

        assertThat(labels(response.getRows())).containsExactly("aa-1", "aa1", "aa2");
    }

    @Test
    void limitPagesThroughEveryRowWithNextStartPrimaryKey() {
        for (Direction direction : Direction.values()) {
            List<String> seen = new ArrayList<>();
            PrimaryKey start = direction == Direction.FORWARD ? MIN : MAX;
            PrimaryKey end = direction == Direction.FORWARD ? MAX : MIN;
            int pages = 0;
            while (start != null) {
                RangeRowQueryCriteria criteria = criteria(direction, start, end);
                criteria.setLimit(4);
                GetRangeResponse page = range(criteria);
                assertThat(page.getRows()).hasSizeLessThanOrEqualTo(4);
                seen.addAll(labels(page.getRows()));
                start = page.getNextStartPrimaryKey();
                pages++;
            }
            List<String> expected = new ArrayList<>(expectedForward());
            if (direction == Direction.BACKWARD) {
                java.util.Collections.reverse(expected);
            }
            assertThat(seen).isEqualTo(expected);
            assertThat(pages).isEqualTo(5);
        }
    }

    @Test
    void aPageHoldsTheRowsThatFitInFourMegabytes() {
        String table = "wide_rows";
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        // Each row reads 8 + 2 (the key) + 1 + 1 MiB: a fourth would pass 4 MiB.
        for (long id = 0; id < 6; id++) {
            RowPutChange put =
                    new RowPutChange(
                            table,
                            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                    .addPrimaryKeyColumn("id", PrimaryKeyValue.fromLong(id))
                                    .build());
            put.addColumn(new Column("v", ColumnValue.fromBinary(new byte[1024 * 1024])));
            client.putRow(new PutRowRequest(put));
        }
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(table);
        criteria.setInclusiveStartPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                        .build());
        criteria.setExclusiveEndPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                        .build());
        criteria.setMaxVersions(1);

        GetRangeResponse first = range(criteria);
        assertThat(first.getRows()).hasSize(3);
        assertThat(first.getNextStartPrimaryKey().getPrimaryKeyColumn("id").getValue().asLong())
                .isEqualTo(3L);
        criteria.setInclusiveStartPrimaryKey(first.getNextStartPrimaryKey());
        GetRangeResponse rest = range(criteria);
        assertThat(rest.getRows()).hasSize(3);
        assertThat(rest.getNextStartPrimaryKey()).isNull();
    }

    @Test
    void columnsToGetAndFilterShapeTheRows() {
        RangeRowQueryCriteria criteria = criteria(Direction.FORWARD, MIN, MAX);
        criteria.addColumnsToGet(new String[] {"pk", "n", "name"});
        criteria.setFilter(
                new SingleColumnValueFilter(
                        "v",
                        SingleColumnValueFilter.CompareOperator.EQUAL,
                        ColumnValue.fromLong(2)));

        List<Row> rows = range(criteria).getRows();

        assertThat(labels(rows)).containsExactly("B2", "a2", "aa2", "b2", "z2", "é2");
        assertThat(rows.get(0).getColumns()).extracting(Column::getName).containsExactly("name");
    }

    @Test
    void aStartBeyondTheEndIsParameterInvalid() {
        TableStoreException error =
                errorOf(() -> range(criteria(Direction.FORWARD, key("z", 1), key("a", 1))));

        assertThat(error.getErrorCode()).isEqualTo("OTSParameterInvalid");
    }
}

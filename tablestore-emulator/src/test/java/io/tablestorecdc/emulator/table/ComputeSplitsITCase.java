package io.tablestorecdc.emulator.table;

import static io.tablestorecdc.emulator.table.TableApiITCase.errorOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.ComputeSplitsBySizeRequest;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.Split;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ComputeSplitsBySize through the stock SDK's {@code computeSplitsBySize}: splits that partition
 * the key space in order, more of them for smaller split sizes; and BatchGetRow's row limit.
 */
class ComputeSplitsITCase {

    private static final String TABLE = "splits";
    private static final String EMPTY = "splits_empty";
    private static final int ROWS = 300;
    private static final String PAYLOAD = "x".repeat(1000);

    static TablestoreEmulator emulator;
    static SyncClient client;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        client = emulator.newSyncClient();
        createTable(TABLE);
        createTable(EMPTY);
        for (int first = 0; first < ROWS; first += 100) {
            BatchWriteRowRequest batch = new BatchWriteRowRequest();
            for (int i = first; i < first + 100; i++) {
                // Three rows per first-column value, so cuts must respect value boundaries.
                RowPutChange put = new RowPutChange(TABLE, key(String.format("k%04d", i / 3), i));
                put.addColumn(new Column("payload", ColumnValue.fromString(PAYLOAD)));
                put.addColumn(new Column("seq", ColumnValue.fromLong(i)));
                batch.addRowChange(put);
            }
            assertThat(client.batchWriteRow(batch).isAllSucceed()).isTrue();
        }
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        emulator.close();
    }

    private static void createTable(String name) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("pk", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    private static PrimaryKey key(String pk, long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString(pk))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .build();
    }

    private static List<Split> splits(String table, long unitCount, long unitBytes) {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest();
        request.setTableName(table);
        request.setSplitSizeInByte(unitCount, unitBytes);
        return client.computeSplitsBySize(request).getSplits();
    }

    private static List<PrimaryKey> keysIn(PrimaryKey start, PrimaryKey end) {
        List<PrimaryKey> keys = new ArrayList<>();
        PrimaryKey next = start;
        while (next != null) {
            RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(TABLE);
            criteria.setInclusiveStartPrimaryKey(next);
            criteria.setExclusiveEndPrimaryKey(end);
            criteria.setDirection(Direction.FORWARD);
            criteria.setMaxVersions(1);
            criteria.setLimit(70);
            GetRangeResponse page = client.getRange(new GetRangeRequest(criteria));
            page.getRows().forEach(r -> keys.add(r.getPrimaryKey()));
            next = page.getNextStartPrimaryKey();
        }
        return keys;
    }

    private static PrimaryKey all(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("pk", value)
                .addPrimaryKeyColumn("n", value)
                .build();
    }

    @Test
    void aSmallTableIsOneSplitOverTheWholeKeySpace() {
        List<Split> splits = splits(TABLE, 1, 100L * 1024 * 1024);

        assertThat(splits).hasSize(1);
        assertThat(splits.get(0).getLowerBound()).isEqualTo(all(PrimaryKeyValue.INF_MIN));
        assertThat(splits.get(0).getUpperBound()).isEqualTo(all(PrimaryKeyValue.INF_MAX));
        assertThat(splits.get(0).getLocation()).matches("[0-9a-f]{32}");
        assertThat(splits(EMPTY, 1, 1)).hasSize(1);
    }

    @Test
    void aSmallSplitSizeGivesOrderedSplitsWithoutGapsOrOverlap() {
        List<Split> splits = splits(TABLE, 20, 1024);

        // About 1 KB per row, 20 KB per split: 300 rows make some 15 splits.
        assertThat(splits).hasSizeBetween(10, 20);
        assertThat(splits.get(0).getLowerBound()).isEqualTo(all(PrimaryKeyValue.INF_MIN));
        assertThat(splits.get(splits.size() - 1).getUpperBound())
                .isEqualTo(all(PrimaryKeyValue.INF_MAX));
        for (int i = 1; i < splits.size(); i++) {
            PrimaryKey previousUpper = splits.get(i - 1).getUpperBound();
            assertThat(splits.get(i).getLowerBound()).isEqualTo(previousUpper);
            assertThat(previousUpper.getPrimaryKeyColumn(1).getValue())
                    .isEqualTo(PrimaryKeyValue.INF_MIN);
            assertThat(splits.get(i).getLowerBound().compareTo(splits.get(i - 1).getLowerBound()))
                    .isPositive();
        }
        List<PrimaryKey> readBySplit = new ArrayList<>();
        for (Split split : splits) {
            List<PrimaryKey> keys = keysIn(split.getLowerBound(), split.getUpperBound());
            assertThat(keys).as("no empty split").isNotEmpty();
            readBySplit.addAll(keys);
        }
        assertThat(readBySplit)
                .hasSize(ROWS)
                .containsExactlyElementsOf(
                        keysIn(all(PrimaryKeyValue.INF_MIN), all(PrimaryKeyValue.INF_MAX)));
    }

    @Test
    void theSplitCountFollowsTheSplitSize() {
        int small = splits(TABLE, 10, 1024).size();
        int large = splits(TABLE, 100, 1024).size();

        assertThat(small).isGreaterThan(large);
        assertThat(large).isGreaterThan(1);
    }

    @Test
    void theSplitPointLimitCapsTheSplits() {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest();
        request.setTableName(TABLE);
        request.setSplitSizeInByte(1, 1024);
        request.setSplitPointLimit(3);

        List<Split> splits = client.computeSplitsBySize(request).getSplits();

        assertThat(splits).hasSize(4);
        assertThat(splits.get(3).getUpperBound()).isEqualTo(all(PrimaryKeyValue.INF_MAX));
    }

    @Test
    void theSchemaComesBackWithTheSplits() {
        ComputeSplitsBySizeRequest request = new ComputeSplitsBySizeRequest(TABLE, 1);

        assertThat(client.computeSplitsBySize(request).getPrimaryKeySchema())
                .extracting(s -> s.getName() + ":" + s.getType())
                .containsExactly("pk:STRING", "n:INTEGER");
    }

    @Test
    void aMissingTableOrANonPositiveSizeIsRefused() {
        assertThat(errorOf(() -> splits("no_such_table", 1, 1024)).getErrorCode())
                .isEqualTo("OTSObjectNotExist");
        assertThat(errorOf(() -> splits(TABLE, 0, 1024)).getErrorCode())
                .isEqualTo("OTSParameterInvalid");
    }

    @Test
    void batchGetRowReadsAtMostOneHundredRows() {
        BatchGetRowResponse hundred = client.batchGetRow(batchGet(100));
        assertThat(hundred.isAllSucceed()).isTrue();
        assertThat(hundred.getBatchGetRowResult(TABLE))
                .extracting(r -> r.getRow().getLatestColumn("seq").getValue().asLong())
                .hasSize(100)
                .startsWith(0L, 1L);

        assertThat(errorOf(() -> client.batchGetRow(batchGet(101))))
                .satisfies(e -> assertThat(e.getErrorCode()).isEqualTo("OTSParameterInvalid"))
                .hasMessage("Rows count exceeds the upper limit: 100.");
    }

    @Test
    void batchGetRowProjectsTheNamedColumns() {
        MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(TABLE);
        criteria.setMaxVersions(1);
        criteria.addRow(key("k0000", 0));
        criteria.addRow(key("k0000", 1));
        criteria.addColumnsToGet("seq");
        BatchGetRowRequest request = new BatchGetRowRequest();
        request.addMultiRowQueryCriteria(criteria);

        List<Row> rows =
                client.batchGetRow(request).getBatchGetRowResult(TABLE).stream()
                        .map(BatchGetRowResponse.RowResult::getRow)
                        .collect(Collectors.toList());

        assertThat(rows)
                .allSatisfy(
                        r ->
                                assertThat(r.getColumns())
                                        .extracting(Column::getName)
                                        .containsExactly("seq"));
        assertThat(rows.get(1).getPrimaryKey().getPrimaryKeyColumns())
                .extracting(PrimaryKeyColumn::getValue)
                .containsExactly(PrimaryKeyValue.fromString("k0000"), PrimaryKeyValue.fromLong(1));
    }

    private static BatchGetRowRequest batchGet(int rows) {
        MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(TABLE);
        criteria.setMaxVersions(1);
        for (int i = 0; i < rows; i++) {
            criteria.addRow(key(String.format("k%04d", i / 3), i));
        }
        BatchGetRowRequest request = new BatchGetRowRequest();
        request.addMultiRowQueryCriteria(criteria);
        return request;
    }
}

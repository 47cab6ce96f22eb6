package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.CapacityUnit;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.ConsumedCapacity;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.Error;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Response;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link SdkTableService} and {@link TableReader} through the real SDK on the emulator. */
class SdkTableServiceITCase {

    private static final String TABLE = "dim";
    private static final int ROWS = 240;

    static TablestoreEmulator emulator;
    static SyncClient sync;
    static SdkTableService service;
    static TableReader reader;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
        sync = emulator.newSyncClient();
        TableMeta meta = new TableMeta(TABLE);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        for (int first = 0; first < ROWS; first += 120) {
            BatchWriteRowRequest batch = new BatchWriteRowRequest();
            for (int i = first; i < first + 120; i++) {
                RowPutChange put = new RowPutChange(TABLE, key("g" + (i / 10), i));
                put.addColumn(new Column("v", ColumnValue.fromString("x".repeat(500))));
                put.addColumn(new Column("seq", ColumnValue.fromLong(i)));
                batch.addRowChange(put);
            }
            assertThat(sync.batchWriteRow(batch).isAllSucceed()).isTrue();
        }
        service =
                SdkTableService.connect(
                        new TablestoreEndpoint(
                                emulator.endpoint(),
                                emulator.instanceName(),
                                TablestoreCredentials.of(
                                        emulator.accessKeyId(), emulator.accessKeySecret())),
                        TABLE);
        reader = new TableReader(service, 3);
    }

    @AfterAll
    static void stop() {
        service.close();
        sync.shutdown();
        emulator.close();
    }

    static PrimaryKey key(String id, long n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                .build();
    }

    private static long seq(Row row) {
        return row.getLatestColumn("seq").getValue().asLong();
    }

    @Test
    void theSchemaIsTheTablesPrimaryKey() {
        assertThat(reader.primaryKey())
                .extracting(PrimaryKeySchema::getName)
                .containsExactly("id", "n");
    }

    @Test
    void moreThanOneHundredKeysAreReadWithProjection() {
        List<PrimaryKey> keys = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            keys.add(key("g" + (i / 10), i));
        }
        keys.add(key("nope", 0));

        List<Optional<Row>> rows = reader.get(keys, Set.of("seq"));

        assertThat(rows).hasSize(151);
        assertThat(rows.subList(0, 150))
                .allSatisfy(r -> assertThat(r.get().getColumns()).hasSize(1));
        assertThat(seq(rows.get(149).get())).isEqualTo(149);
        assertThat(rows.get(150)).isEmpty();
    }

    @Test
    void aPrefixLookupReturnsTheRowsOfOneFirstColumnValue() {
        List<Row> rows = reader.getByPrefix(List.of(PrimaryKeyValue.fromString("g3")), Set.of());

        assertThat(rows)
                .extracting(SdkTableServiceITCase::seq)
                .containsExactly(30L, 31L, 32L, 33L, 34L, 35L, 36L, 37L, 38L, 39L);
    }

    @Test
    void splitsCoverTheTableAndReadLikeOneRange() {
        List<KeyRange> splits = reader.splits(20 * 1024);
        List<Long> bySplit = new ArrayList<>();
        for (KeyRange split : splits) {
            bySplit.addAll(readAll(split));
        }

        assertThat(splits).hasSizeGreaterThan(2);
        assertThat(bySplit).hasSize(ROWS).containsExactlyElementsOf(readAll(reader.wholeTable()));
    }

    /**
     * The service decodes GetRange pages itself: the same rows, page ends and next keys as the
     * SDK's {@code SyncClient#getRange} gives for the same requests, for every type and for rows
     * that lack columns, with and without a projection.
     */
    @Test
    void batchGetRowsReadAsTheSdkReadsThem() {
        String table = typedTable("typed_batch");
        List<PrimaryKey> keys = new ArrayList<>();
        for (int i = 0; i < 60; i += 3) {
            keys.add(typedKey(i)); // rows 50 to 59 do not exist
        }
        try (SdkTableService typed = SdkTableService.connect(endpoint(), table)) {
            for (Set<String> columns : List.of(Set.<String>of(), Set.of("s", "n", "flag"))) {
                List<RowResult> ours = typed.batchGet(keys, columns);
                MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(table);
                criteria.setMaxVersions(1);
                keys.forEach(criteria::addRow);
                columns.forEach(criteria::addColumnsToGet);
                BatchGetRowRequest request = new BatchGetRowRequest();
                request.addMultiRowQueryCriteria(criteria);
                List<BatchGetRowResponse.RowResult> sdk =
                        sync.batchGetRow(request).getBatchGetRowResult(table);

                assertThat(ours).hasSameSizeAs(sdk);
                int found = 0;
                for (int i = 0; i < ours.size(); i++) {
                    Optional<Row> mine = ours.get(i).row();
                    Row theirs = sdk.get(i).getRow();
                    assertThat(mine.isPresent()).as("row %d", i).isEqualTo(theirs != null);
                    if (theirs != null) {
                        assertSameRow(mine.get(), theirs);
                        found++;
                    }
                }
                assertThat(found).isEqualTo(17);
            }
        }
    }

    @Test
    void aRetriedBatchAnswerReplacesTheRowsThatFailedInOrder() {
        ConsumedCapacity none = new ConsumedCapacity(new CapacityUnit(0, 0));
        Row a = new Row(key("a", 0), new Column[0]);
        Row b = new Row(key("b", 1), new Column[0]);
        Row c = new Row(key("c", 2), new Column[0]);
        BatchGetRowResponse before = new BatchGetRowResponse(new Response("first"));
        before.addResult(new BatchGetRowResponse.RowResult("t", a, none, 0));
        before.addResult(
                new BatchGetRowResponse.RowResult("t", new Error("OTSServerBusy", "x"), 1));
        before.addResult(new BatchGetRowResponse.RowResult("t", c, none, 2));
        before.addResult(
                new BatchGetRowResponse.RowResult("t", new Error("OTSServerBusy", "x"), 3));
        BatchGetRowResponse retried = new BatchGetRowResponse(new Response("second"));
        retried.addResult(new BatchGetRowResponse.RowResult("t", b, none, 0));
        retried.addResult(new BatchGetRowResponse.RowResult("t", new Error("OTSTimeout", "y"), 1));

        BatchGetRowResponse merged =
                RawTableReads.BatchRowsConsumer.merge(before, retried, "trace");

        List<BatchGetRowResponse.RowResult> rows = merged.getBatchGetRowResult("t");
        assertThat(rows)
                .extracting(BatchGetRowResponse.RowResult::getIndex)
                .containsExactly(0, 1, 2, 3);
        assertThat(rows.get(0).getRow()).isSameAs(a);
        assertThat(rows.get(1).getRow()).isSameAs(b);
        assertThat(rows.get(2).getRow()).isSameAs(c);
        assertThat(rows.get(3).getError().getCode()).isEqualTo("OTSTimeout");
        assertThat(merged.getRequestId()).isEqualTo("second");
    }

    private static void assertSameRow(Row mine, Row theirs) {
        assertThat(mine.getPrimaryKey()).isEqualTo(theirs.getPrimaryKey());
        assertThat(mine.getColumns()).hasSameSizeAs(theirs.getColumns());
        for (int c = 0; c < mine.getColumns().length; c++) {
            Column a = mine.getColumns()[c];
            Column b = theirs.getColumns()[c];
            assertThat(a.getName()).isEqualTo(b.getName());
            assertThat(a.getValue()).isEqualTo(b.getValue());
            assertThat(a.getTimestamp()).isEqualTo(b.getTimestamp());
        }
    }

    private static PrimaryKey typedKey(int i) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("s", PrimaryKeyValue.fromString("ké" + i))
                .addPrimaryKeyColumn("b", PrimaryKeyValue.fromBinary(new byte[] {(byte) i}))
                .build();
    }

    /** A table of 50 rows of every type, some lacking columns. */
    private static String typedTable(String table) {
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("s", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("b", PrimaryKeyType.BINARY);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int i = 0; i < 50; i++) {
            RowPutChange put = new RowPutChange(table, typedKey(i));
            put.addColumn(new Column("text", ColumnValue.fromString("字".repeat(i % 4))));
            if (i % 3 != 0) {
                put.addColumn(new Column("n", ColumnValue.fromLong(-i)));
                put.addColumn(new Column("d", ColumnValue.fromDouble(i / 7.0)));
            }
            put.addColumn(new Column("flag", ColumnValue.fromBoolean(i % 2 == 0)));
            put.addColumn(new Column("bin", ColumnValue.fromBinary(new byte[i % 5])));
            batch.addRowChange(put);
        }
        assertThat(sync.batchWriteRow(batch).isAllSucceed()).isTrue();
        return table;
    }

    @Test
    void rangePagesReadAsTheSdkReadsThem() {
        String table = typedTable("typed");
        try (SdkTableService typed = SdkTableService.connect(endpoint(), table)) {
            TableReader typedReader = new TableReader(typed, 0);
            for (Set<String> columns : List.of(Set.<String>of(), Set.of("s", "n", "flag"))) {
                Optional<PrimaryKey> next = Optional.of(typedReader.wholeTable().inclusiveStart());
                int pages = 0;
                while (next.isPresent()) {
                    KeyRange range =
                            new KeyRange(next.get(), typedReader.wholeTable().exclusiveEnd());
                    RangePage ours = typed.getRange(range, columns, 7);
                    RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(table);
                    criteria.setInclusiveStartPrimaryKey(range.inclusiveStart());
                    criteria.setExclusiveEndPrimaryKey(range.exclusiveEnd());
                    criteria.setMaxVersions(1);
                    criteria.setLimit(7);
                    columns.forEach(criteria::addColumnsToGet);
                    GetRangeResponse sdk = sync.getRange(new GetRangeRequest(criteria));

                    assertThat(ours.rows()).hasSameSizeAs(sdk.getRows());
                    for (int i = 0; i < ours.rows().size(); i++) {
                        assertSameRow(ours.rows().get(i), sdk.getRows().get(i));
                    }
                    assertThat(ours.nextStart())
                            .isEqualTo(Optional.ofNullable(sdk.getNextStartPrimaryKey()));
                    next = ours.nextStart();
                    pages++;
                }
                assertThat(pages).isEqualTo(8);
            }
        }
    }

    /**
     * A range of several pages read with the next page asked for ahead: every row once, in key
     * order, and a row limit inside the last page still holds.
     */
    @Test
    void aRangeOfSeveralPagesIsReadWholeWithTheNextPageAskedForAhead() {
        String table = "paged";
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("k", PrimaryKeyType.INTEGER);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        int rows = 2 * TableReader.PAGE_ROWS + 17;
        for (int first = 0; first < rows; first += 200) {
            BatchWriteRowRequest batch = new BatchWriteRowRequest();
            for (int i = first; i < Math.min(rows, first + 200); i++) {
                RowPutChange put =
                        new RowPutChange(
                                table,
                                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                        .addPrimaryKeyColumn("k", PrimaryKeyValue.fromLong(i))
                                        .build());
                put.addColumn(new Column("v", ColumnValue.fromLong(i)));
                batch.addRowChange(put);
            }
            assertThat(sync.batchWriteRow(batch).isAllSucceed()).isTrue();
        }

        try (SdkTableService paged = SdkTableService.connect(endpoint(), table)) {
            TableReader pagedReader = new TableReader(paged, 0);
            List<Long> read = new ArrayList<>();
            pagedReader
                    .rows(pagedReader.wholeTable(), Set.of())
                    .forEachRemaining(r -> read.add(r.getLatestColumn("v").getValue().asLong()));
            List<Long> limited = new ArrayList<>();
            pagedReader
                    .rows(pagedReader.wholeTable(), Set.of(), TableReader.PAGE_ROWS + 3)
                    .forEachRemaining(
                            r ->
                                    limited.add(
                                            r.getPrimaryKey()
                                                    .getPrimaryKeyColumn(0)
                                                    .getValue()
                                                    .asLong()));

            assertThat(read).hasSize(rows);
            assertThat(read).isSorted().doesNotHaveDuplicates();
            assertThat(limited).hasSize(TableReader.PAGE_ROWS + 3).isSorted();
        }
    }

    private static TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                emulator.endpoint(),
                emulator.instanceName(),
                TablestoreCredentials.of(emulator.accessKeyId(), emulator.accessKeySecret()));
    }

    @Test
    void aWrongKeyFailsWithTheServiceError() {
        PrimaryKey wrong =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.fromLong(1))
                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(1))
                        .build();

        assertThatThrownBy(() -> reader.get(List.of(wrong), Set.of()))
                .isInstanceOf(RowReadException.class)
                .hasMessageContaining("OTSInvalidPK")
                .hasMessageContaining("not retriable");
    }

    @Test
    void aMissingTableIsTheServicesError() {
        try (SdkTableService missing =
                SdkTableService.connect(
                        new TablestoreEndpoint(
                                emulator.endpoint(),
                                emulator.instanceName(),
                                TablestoreCredentials.of(
                                        emulator.accessKeyId(), emulator.accessKeySecret())),
                        "no_such_table")) {
            assertThatThrownBy(missing::primaryKey)
                    .isInstanceOfSatisfying(
                            TableStoreException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo("OTSObjectNotExist"));
        }
    }

    private static List<Long> readAll(KeyRange range) {
        List<Long> out = new ArrayList<>();
        Optional<PrimaryKey> next = Optional.of(range.inclusiveStart());
        while (next.isPresent()) {
            RangePage page =
                    reader.readPage(new KeyRange(next.get(), range.exclusiveEnd()), Set.of("seq"));
            page.rows().forEach(r -> out.add(seq(r)));
            next = page.nextStart();
        }
        return out;
    }
}

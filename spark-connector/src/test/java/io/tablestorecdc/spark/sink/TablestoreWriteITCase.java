package io.tablestorecdc.spark.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.spark.CdcTestBed;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code format("tablestore")} on the emulator: batch appends as upserts by key in both write
 * modes, the source's changes applied as what they were (deletes written or ignored), clear errors
 * for a wrong schema, and a streaming replica of {@code tablestore-cdc} equal to its source.
 */
class TablestoreWriteITCase {

    private static final StructType ROWS =
            new StructType()
                    .add("id", DataTypes.StringType)
                    .add("qty", DataTypes.LongType)
                    .add("name", DataTypes.StringType);

    private static final StructType CHANGES =
            ROWS.add("_op", DataTypes.StringType)
                    .add(
                            "_column_ops",
                            DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType))
                    .add(
                            "_seq",
                            new StructType()
                                    .add("epoch", DataTypes.IntegerType)
                                    .add("timestamp", DataTypes.LongType)
                                    .add("row_index", DataTypes.IntegerType));

    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void aBatchAppendPutsRowsByKey() {
        String table = bed.newTable();
        putWithExtra(table, "a");

        write(table, ROWS, List.of(row("a", 5L, null), row("b", 6L, "y")), Map.of());

        assertThat(scan(table))
                .containsExactly(
                        Map.entry("a", Map.of("qty", 5L)),
                        Map.entry("b", Map.of("qty", 6L, "name", "y")));
    }

    @Test
    void updateModeChangesOnlyTheGivenColumnsAndDeletesNullOnes() {
        String table = bed.newTable();
        putWithExtra(table, "a");

        write(table, ROWS, List.of(row("a", 5L, null)), Map.of("write.mode", "update"));

        assertThat(scan(table)).containsExactly(Map.entry("a", Map.of("qty", 5L, "old", "kept")));
    }

    @Test
    void changesOfTheSourceApplyAsWhatTheyWereInSeqOrder() {
        String table = bed.newTable();
        bed.put(table, "c", 9, "gone");

        write(table, CHANGES, changes(), Map.of("write.batch.max.rows", "10"));

        assertThat(scan(table))
                .containsExactly(
                        Map.entry("a", Map.of("qty", 2L)), Map.entry("b", Map.of("name", "n")));
    }

    @Test
    void ignoredDeletesLeaveTheirRows() {
        String table = bed.newTable();
        bed.put(table, "c", 9, "kept");

        write(table, CHANGES, changes(), Map.of("write.ignore.delete", "true"));

        assertThat(scan(table)).containsKey("c").containsKey("a");
        assertThat(scan(table).get("c")).isEqualTo(Map.of("qty", 9L, "name", "kept"));
    }

    @Test
    void aMissingOrMistypedKeyColumnIsNamedWithTheFix() {
        String table = bed.newTable();
        StructType noKey = new StructType().add("qty", DataTypes.LongType);
        assertThatThrownBy(() -> write(table, noKey, List.of(RowFactory.create(1L)), Map.of()))
                .hasStackTraceContaining("The DataFrame has no column id, a primary-key column")
                .hasStackTraceContaining("(id STRING)");
        StructType wrongType = new StructType().add("id", DataTypes.LongType);
        assertThatThrownBy(() -> write(table, wrongType, List.of(RowFactory.create(1L)), Map.of()))
                .hasStackTraceContaining("Column id is bigint, but it is a STRING primary-key")
                .hasStackTraceContaining("cast(\"string\")");
        StructType badOption = ROWS;
        assertThatThrownBy(
                        () ->
                                write(
                                        table,
                                        badOption,
                                        List.of(row("a", 1L, "x")),
                                        Map.of("write.mode", "merge")))
                .hasStackTraceContaining("Option 'write.mode' has invalid value 'merge'");
    }

    @Test
    void aStreamingReplicaOfTheCdcSourceEqualsTheSource() throws Exception {
        String source = bed.newTable();
        String replica = bed.newTable();
        StructType attributes =
                new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
        Dataset<Row> changes = bed.reader(source, source + "_tunnel").schema(attributes).load();
        StreamingQuery query =
                changes.writeStream()
                        .format("tablestore")
                        .options(connection(replica))
                        .option("checkpointLocation", CdcTestBed.checkpointDir().toString())
                        .trigger(Trigger.ProcessingTime(200))
                        .start();
        try {
            bed.put(source, "a", 1, "apple");
            bed.put(source, "b", 2, "berry");
            bed.updateQtyDeleteName(source, "a", 5);
            bed.delete(source, "b");
            bed.put(source, "c", 3, "cherry");
            bed.put(source, "b", 4, "back");
            CdcTestBed.await(
                    query,
                    "the replica equal to the source",
                    Duration.ofSeconds(60),
                    () -> scan(replica).equals(scan(source)) && scan(source).size() == 3);
            assertThat(scan(replica))
                    .containsExactly(
                            Map.entry("a", Map.of("qty", 5L)),
                            Map.entry("b", Map.of("qty", 4L, "name", "back")),
                            Map.entry("c", Map.of("qty", 3L, "name", "cherry")));
        } finally {
            query.stop();
        }
    }

    @Test
    void aRestartedQueryGoesOnFromItsCheckpointAndTheReplicaStillEqualsTheSource()
            throws Exception {
        String source = bed.newTable();
        String replica = bed.newTable();
        String checkpoint = CdcTestBed.checkpointDir().toString();
        bed.put(source, "a", 1, "apple");
        bed.put(source, "b", 2, "berry");
        StreamingQuery first = replicate(source, replica, checkpoint);
        try {
            CdcTestBed.await(
                    first,
                    "the first rows in the replica",
                    Duration.ofSeconds(60),
                    () -> scan(replica).size() == 2);
        } finally {
            first.stop();
        }
        bed.updateQtyDeleteName(source, "a", 7);
        bed.delete(source, "b");
        bed.put(source, "c", 3, "cherry");
        StreamingQuery second = replicate(source, replica, checkpoint);
        try {
            CdcTestBed.await(
                    second,
                    "the replica equal to the source",
                    Duration.ofSeconds(60),
                    () -> scan(replica).equals(scan(source)) && scan(source).containsKey("c"));
            assertThat(scan(replica))
                    .containsExactly(
                            Map.entry("a", Map.of("qty", 7L)),
                            Map.entry("c", Map.of("qty", 3L, "name", "cherry")));
        } finally {
            second.stop();
        }
    }

    @Test
    void theSourcesSchemaLessMapIsRefusedWithTheFix() {
        String table = bed.newTable();
        StructType schemaLess =
                new StructType()
                        .add("id", DataTypes.StringType)
                        .add(
                                "_values",
                                DataTypes.createMapType(
                                        DataTypes.StringType, DataTypes.StringType));
        assertThatThrownBy(
                        () ->
                                write(
                                        table,
                                        schemaLess,
                                        List.of(RowFactory.create("a", Map.of("qty", "1"))),
                                        Map.of()))
                .hasStackTraceContaining("Column _values is map<string,string>")
                .hasStackTraceContaining("read the source with .schema(...)");
    }

    @Test
    void failedRequestsAreRetriedUpToWriteMaxRetries() {
        String table = bed.newTable();
        try {
            bed.emulator
                    .faults()
                    .add(Faults.Rule.error("BatchWriteRow", "OTSInternalServerError", 500, 2));
            write(table, ROWS, List.of(row("a", 1L, "x")), Map.of());
            assertThat(scan(table)).containsOnlyKeys("a");

            bed.emulator
                    .faults()
                    .add(Faults.Rule.error("BatchWriteRow", "OTSInternalServerError", 500, 1));
            assertThatThrownBy(
                            () ->
                                    write(
                                            table,
                                            ROWS,
                                            List.of(row("b", 2L, "y")),
                                            Map.of("write.max.retries", "0")))
                    .hasStackTraceContaining(
                            "A BatchWriteRow request of 1 row(s) to table " + table)
                    .hasStackTraceContaining("OTSInternalServerError");
            assertThat(scan(table)).doesNotContainKey("b");
        } finally {
            bed.emulator.faults().clear();
        }
    }

    // ---- harness ----

    private static StreamingQuery replicate(String source, String replica, String checkpoint)
            throws Exception {
        StructType attributes =
                new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
        return bed.reader(source, source + "_tunnel")
                .schema(attributes)
                .load()
                .writeStream()
                .format("tablestore")
                .options(connection(replica))
                .option("checkpointLocation", checkpoint)
                .trigger(Trigger.ProcessingTime(200))
                .start();
    }

    /** a: PUT, then (arriving in reverse _seq order) an update of qty and a delete of name. */
    private static List<Row> changes() {
        return List.of(
                change("a", 1L, "x", "PUT", Map.of("qty", "PUT", "name", "PUT"), 1),
                change("a", 2L, null, "UPDATE", Map.of("qty", "PUT"), 3),
                change("a", null, null, "UPDATE", Map.of("name", "DELETE_ALL_VERSION"), 2),
                change("b", null, "n", "UPDATE", Map.of("name", "PUT"), 4),
                change("c", null, null, "DELETE", Map.of(), 5));
    }

    private static Row change(
            String id, Long qty, String name, String op, Map<String, String> ops, long ts) {
        return RowFactory.create(id, qty, name, op, ops, RowFactory.create(1, ts, 0));
    }

    private static Row row(String id, Long qty, String name) {
        return RowFactory.create(id, qty, name);
    }

    private static void write(
            String table, StructType schema, List<Row> rows, Map<String, String> options) {
        // One partition: the changes of a key must reach one task, as the source delivers them.
        bed.spark
                .createDataFrame(rows, schema)
                .coalesce(1)
                .write()
                .format("tablestore")
                .options(connection(table))
                .options(options)
                .mode("append")
                .save();
    }

    private static Map<String, String> connection(String table) {
        return Map.of(
                "endpoint", bed.emulator.endpoint(),
                "instance.name", bed.emulator.instanceName(),
                "access.key.id", bed.emulator.accessKeyId(),
                "access.key.secret", CdcTestBed.SECRET,
                "table.name", table);
    }

    private static void putWithExtra(String table, String id) {
        RowPutChange change = new RowPutChange(table, CdcTestBed.key(id));
        change.addColumn(new Column("qty", ColumnValue.fromLong(1)));
        change.addColumn(new Column("name", ColumnValue.fromString("x")));
        change.addColumn(new Column("old", ColumnValue.fromString("kept")));
        AppliedOnceWrites.put(bed.sync, change);
    }

    /** The table as GetRange reads it: id to its columns. */
    private static Map<String, Map<String, Object>> scan(String table) {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(bound(PrimaryKeyValue.INF_MIN));
        range.setExclusiveEndPrimaryKey(bound(PrimaryKeyValue.INF_MAX));
        range.setMaxVersions(1);
        Map<String, Map<String, Object>> state = new TreeMap<>();
        while (true) {
            GetRangeResponse page = bed.sync.getRange(new GetRangeRequest(range));
            for (com.alicloud.openservices.tablestore.model.Row row : page.getRows()) {
                Map<String, Object> columns = new TreeMap<>();
                for (Column c : row.getColumns()) {
                    ColumnValue v = c.getValue();
                    columns.put(
                            c.getName(),
                            switch (v.getType()) {
                                case INTEGER -> v.asLong();
                                case STRING -> v.asString();
                                default -> Arrays.toString(v.asBinary());
                            });
                }
                state.put(
                        row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString(),
                        columns);
            }
            if (page.getNextStartPrimaryKey() == null) {
                return state;
            }
            range.setInclusiveStartPrimaryKey(page.getNextStartPrimaryKey());
        }
    }

    private static PrimaryKey bound(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder().addPrimaryKeyColumn("id", value).build();
    }
}

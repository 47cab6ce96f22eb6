package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One source of several tables (a list in table.name, or table.pattern): every table's changes
 * exactly once with its table name, across a restart, with a table created while the query runs.
 */
class MultiTableITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final StructType ATTRIBUTES =
            new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    /** A prefix no other test's tables share, so that a pattern selects this test's only. */
    private static String prefix() {
        return "mt_" + UUID.randomUUID().toString().substring(0, 8) + "_";
    }

    private static List<String> described(BatchSink sink) {
        List<String> rows = new ArrayList<>();
        for (Row r : sink.rows()) {
            rows.add(
                    r.getString(r.fieldIndex("_table"))
                            + " "
                            + r.getString(r.fieldIndex("id"))
                            + " "
                            + r.getString(r.fieldIndex("_op"))
                            + " qty="
                            + (r.isNullAt(r.fieldIndex("qty"))
                                    ? "null"
                                    : r.getLong(r.fieldIndex("qty"))));
        }
        return rows;
    }

    private static Dataset<Row> listed(String tables) {
        return bed.reader(tables, "multi").schema(ATTRIBUTES).load();
    }

    /** A list whose tables' channels one task reads together (a {@link TableGroupsPartition}). */
    private static Dataset<Row> listedInOneTask(String tables) {
        return bed.reader(tables, "multi")
                .option("max.channels.per.partition", "8")
                .schema(ATTRIBUTES)
                .load();
    }

    @Test
    void aListOfTablesReadInOneTaskDeliversEachChangeOnceWithItsTableAcrossARestart()
            throws Exception {
        String a = bed.newTable();
        String b = bed.newTable();
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        bed.put(a, "a2", 3, "z");
        Path checkpoint = CdcTestBed.checkpointDir();
        BatchSink sink = new BatchSink();

        StreamingQuery first = bed.start(listedInOneTask(a + "," + b), checkpoint, sink);
        try {
            await(first, "3 changes", TIMEOUT, () -> sink.count() >= 3);
        } finally {
            first.stop();
        }
        bed.put(b, "b2", 4, "w");
        bed.delete(a, "a1");
        StreamingQuery second = bed.start(listedInOneTask(b + "," + a), checkpoint, sink);
        try {
            await(second, "5 changes", TIMEOUT, () -> sink.count() >= 5);
            bed.awaitTriggers(second, 3, TIMEOUT);
            Map<String, String> metrics = second.lastProgress().sources()[0].metrics();
            assertThat(metrics).containsEntry("tables", "2").containsEntry("tablesDropped", "0");
            assertThat(metrics).containsKeys(a + ".maxLagMillis", b + ".channelsOpen");
            // The second run read a's delete and b's put (a batch the stop cut off runs again).
            assertThat(Long.parseLong(metrics.get(a + ".recordsRead"))).isPositive();
            assertThat(Long.parseLong(metrics.get(b + ".recordsRead"))).isPositive();
            // Each table's catch-up report is kept, written together with the other's.
            for (String table : List.of(a, b)) {
                await(
                        second,
                        "a catch-up report of " + table + " listing its channel",
                        TIMEOUT,
                        () ->
                                bed.withMetaTable(
                                        java.time.Clock.systemUTC(),
                                        meta ->
                                                meta.tunnel(bed.tunnelId(table, "multi"))
                                                        .progress()
                                                        .map(p -> !p.caughtUp().isEmpty())
                                                        .orElse(false)));
            }
        } finally {
            second.stop();
        }

        assertThat(described(sink))
                .as("each change once, each table's in its own order, across the restart")
                .containsExactlyInAnyOrder(
                        a + " a1 PUT qty=1",
                        a + " a2 PUT qty=3",
                        b + " b1 PUT qty=2",
                        b + " b2 PUT qty=4",
                        a + " a1 DELETE qty=null")
                .containsSubsequence(a + " a1 PUT qty=1", a + " a2 PUT qty=3")
                .containsSubsequence(a + " a2 PUT qty=3", a + " a1 DELETE qty=null");
        String offsets = Files.readString(checkpoint.resolve("offsets").resolve("0"));
        assertThat(offsets).contains("\"tables\":{\"" + a + "\"");
    }

    @Test
    void aPatternReadsItsTablesAndOneCreatedWhileTheQueryRuns() throws Exception {
        String prefix = prefix();
        String a = bed.newTable(prefix);
        String b = bed.newTable(prefix);
        String other = bed.newTable("not_" + prefix);
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        bed.put(other, "o1", 9, "never");
        Dataset<Row> df = pattern(prefix);
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        String c;
        try {
            await(query, "2 changes", TIMEOUT, () -> sink.count() >= 2);
            c = bed.newTable(prefix);
            bed.put(c, "c1", 5, "v");
            bed.put(a, "a2", 3, "z");
            await(query, "the new table's change", TIMEOUT, () -> sink.count() >= 4);
            bed.put(c, "c2", 6, "u");
            await(query, "5 changes", TIMEOUT, () -> sink.count() >= 5);
            bed.awaitTriggers(query, 3, TIMEOUT);
            assertThat(query.lastProgress().sources()[0].metrics())
                    .containsEntry("tables", "3")
                    .as("each table's records, counted once")
                    .containsEntry(a + ".recordsRead", "2")
                    .containsEntry(b + ".recordsRead", "1")
                    .containsEntry(c + ".recordsRead", "2");
        } finally {
            query.stop();
        }

        assertThat(described(sink))
                .as("the new table from its first change, written before it was found")
                .containsExactlyInAnyOrder(
                        a + " a1 PUT qty=1",
                        b + " b1 PUT qty=2",
                        c + " c1 PUT qty=5",
                        a + " a2 PUT qty=3",
                        c + " c2 PUT qty=6");
    }

    @Test
    void aTableDroppedWhileTheQueryRunsEndsWithAMetricAndTheOthersGoOn() throws Exception {
        String prefix = prefix();
        String a = bed.newTable(prefix);
        String b = bed.newTable(prefix);
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(pattern(prefix), CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "2 changes", TIMEOUT, () -> sink.count() >= 2);
            bed.sync.deleteTable(new DeleteTableRequest(b));
            bed.put(a, "a2", 3, "z");
            await(
                    query,
                    "the dropped table counted and the other table's change",
                    TIMEOUT,
                    () ->
                            sink.count() >= 3
                                    && query.lastProgress() != null
                                    && "1"
                                            .equals(
                                                    query.lastProgress()
                                                            .sources()[0]
                                                            .metrics()
                                                            .get("tablesDropped")));
            bed.put(a, "a3", 4, "w");
            await(query, "a change after the drop", TIMEOUT, () -> sink.count() >= 4);
            assertThat(query.lastProgress().sources()[0].metrics()).containsEntry("tables", "1");
        } finally {
            query.stop();
        }

        assertThat(described(sink))
                .containsExactlyInAnyOrder(
                        a + " a1 PUT qty=1",
                        b + " b1 PUT qty=2",
                        a + " a2 PUT qty=3",
                        a + " a3 PUT qty=4");
    }

    @Test
    void withOnDroppedTableFailADroppedTableStopsTheQueryNamingIt() throws Exception {
        String prefix = prefix();
        String a = bed.newTable(prefix);
        String b = bed.newTable(prefix);
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        BatchSink sink = new BatchSink();
        Dataset<Row> strict =
                bed.instanceReader()
                        .option("table.pattern", prefix + "[0-9]+")
                        .option("table.discovery.interval", "1s")
                        .option("on.dropped.table", "fail")
                        .option("tunnel.name", "multi")
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .schema(ATTRIBUTES)
                        .load();

        StreamingQuery query = bed.start(strict, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "2 changes", TIMEOUT, () -> sink.count() >= 2);
            bed.sync.deleteTable(new DeleteTableRequest(b));
            Await.until("the query to stop", TIMEOUT, () -> !query.isActive());

            assertThat(query.exception().get())
                    .hasStackTraceContaining("Table '" + b + "'")
                    .hasStackTraceContaining("is gone (dropped)")
                    .hasStackTraceContaining("on.dropped.table=skip");
        } finally {
            query.stop();
        }
    }

    @Test
    void aNewTableWithoutTheTunnelIsTriedAgainUntilTheTunnelExists() throws Exception {
        String prefix = prefix();
        String a = bed.newTable(prefix);
        bed.createTunnel(a, "multi", TunnelType.Stream);
        bed.put(a, "a1", 1, "x");
        BatchSink sink = new BatchSink();
        Dataset<Row> df =
                bed.instanceReader()
                        .option("table.pattern", prefix + "[0-9]+")
                        .option("table.discovery.interval", "1s")
                        .option("tunnel.name", "multi") // tunnel.create = none: it must exist
                        .schema(ATTRIBUTES)
                        .load();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        String b;
        try {
            await(query, "a's change", TIMEOUT, () -> sink.count() >= 1);
            b = bed.newTable(prefix);
            // Listed at least twice without its tunnel: the query goes on, the table waits.
            bed.awaitTriggers(query, 15, TIMEOUT);
            assertThat(query.lastProgress().sources()[0].metrics()).containsEntry("tables", "1");
            bed.createTunnel(b, "multi", TunnelType.Stream);
            bed.put(b, "b1", 2, "y");
            await(query, "b's change once its tunnel exists", TIMEOUT, () -> sink.count() >= 2);
        } finally {
            query.stop();
        }

        assertThat(described(sink)).containsExactly(a + " a1 PUT qty=1", b + " b1 PUT qty=2");
    }

    private static Dataset<Row> pattern(String prefix) {
        return bed.instanceReader()
                .option("table.pattern", prefix + "[0-9]+")
                .option("table.discovery.interval", "1s")
                .option("tunnel.name", "multi")
                .option("tunnel.create", "stream")
                .option("tunnel.start", "earliest")
                .option("channel.read.budget", "2s")
                .schema(ATTRIBUTES)
                .load();
    }

    @Test
    void aQueryOfOneOfTheTablesTakesItsTunnelOverWhereTheQueryOfSeveralStopped() throws Exception {
        String a = bed.newTable();
        String b = bed.newTable();
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        BatchSink several = new BatchSink();
        StreamingQuery first = bed.start(listed(a + "," + b), CdcTestBed.checkpointDir(), several);
        try {
            await(first, "2 changes", TIMEOUT, () -> several.count() >= 2);
        } finally {
            first.stop();
        }
        bed.put(b, "b2", 3, "z");
        bed.put(a, "a2", 4, "w");

        BatchSink one = new BatchSink();
        StreamingQuery second = bed.start(listed(b), CdcTestBed.checkpointDir(), one);
        try {
            await(
                    second,
                    "the change after the stop",
                    TIMEOUT,
                    () -> one.count() >= 1 && described(one).contains(b + " b2 PUT qty=3"));
            bed.awaitTriggers(second, 3, TIMEOUT);
        } finally {
            second.stop();
        }

        // A fresh consumer starts at the server's checkpoints: nothing lost, and only the stopped
        // query's last batch may be read again.
        assertThat(described(one))
                .contains(b + " b2 PUT qty=3")
                .doesNotHaveDuplicates()
                .isSubsetOf(b + " b1 PUT qty=2", b + " b2 PUT qty=3");
    }

    @Test
    void aTableAnotherQueryReadsFailsTheQueryOfSeveralBeforeItDeliversAnything() throws Exception {
        String a = bed.newTable();
        String b = bed.newTable();
        bed.put(a, "a1", 1, "x");
        bed.put(b, "b1", 2, "y");
        BatchSink one = new BatchSink();
        StreamingQuery first = bed.start(listed(b), CdcTestBed.checkpointDir(), one);
        try {
            await(first, "b's change", TIMEOUT, () -> one.count() >= 1);
            BatchSink several = new BatchSink();
            StreamingQuery second =
                    bed.start(listed(a + "," + b), CdcTestBed.checkpointDir(), several);
            Await.until("the query of several to fail", TIMEOUT, () -> !second.isActive());

            assertThat(second.exception().get())
                    .hasStackTraceContaining("is owned by consumer")
                    .hasStackTraceContaining(
                            "bin/tablestore-cdc lease release --table " + b + " --tunnel multi");
            assertThat(several.count()).as("rows delivered by the refused query").isZero();
        } finally {
            first.stop();
        }
    }

    @Test
    void aTableOfAnotherPrimaryKeyIsRefusedWithDeclaredColumnsNamingBothKeysAndTheFix() {
        String a = bed.newTable();
        String odd = tableKeyedBy("mt_odd_", "id", PrimaryKeyType.INTEGER);

        assertThatThrownBy(() -> listed(a + "," + odd))
                .hasMessageContaining("Table '" + odd + "' has the primary key (id INTEGER)")
                .hasMessageContaining("table '" + a + "' has (id STRING)")
                .hasMessageContaining("without a schema, or with the _values map")
                .hasMessageContaining("table.exclude");
        assertThatThrownBy(() -> bed.reader(a + "," + odd, "multi").load())
                .as("one name of two types fits no layout")
                .hasMessageContaining("Primary-key column 'id' is INTEGER in table '" + odd)
                .hasMessageContaining("but STRING in table '" + a + "'");
    }

    @Test
    void tablesOfDifferentKeysAreReadSchemaFreeEachRowCarryingEveryKeyColumn() throws Exception {
        String a = bed.newTable();
        String numbered = tableKeyedBy("mt_num_", "num", PrimaryKeyType.INTEGER);
        bed.put(a, "a1", 1, "x");
        RowPutChange put =
                new RowPutChange(
                        numbered,
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("num", PrimaryKeyValue.fromLong(7))
                                .build());
        put.addColumn(new Column("price", ColumnValue.fromDouble(2.5)));
        AppliedOnceWrites.put(bed.sync, put);
        Dataset<Row> both = bed.reader(a + "," + numbered, "multi").load();
        BatchSink sink = new BatchSink();

        assertThat(both.schema().fieldNames()).startsWith("id", "num", "_values", "_table");
        assertThat(both.schema().apply("id").nullable()).isTrue();
        assertThat(both.schema().apply("num").dataType()).isEqualTo(DataTypes.LongType);
        assertThat(both.schema().apply("num").nullable()).isTrue();
        StreamingQuery query = bed.start(both, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "2 changes", TIMEOUT, () -> sink.count() >= 2);
        } finally {
            query.stop();
        }

        assertThat(sink.rows())
                .extracting(
                        r ->
                                r.getString(r.fieldIndex("_table"))
                                        + " "
                                        + r.get(r.fieldIndex("id"))
                                        + " "
                                        + r.get(r.fieldIndex("num"))
                                        + " "
                                        + new TreeMap<>(r.getJavaMap(r.fieldIndex("_values"))))
                .containsExactlyInAnyOrder(
                        a + " a1 null {name=x, qty=1}", numbered + " null 7 {price=2.5}");
    }

    /** A new table of one primary-key column {@code name} of {@code type}. */
    private static String tableKeyedBy(String prefix, String name, PrimaryKeyType type) {
        String table = prefix + UUID.randomUUID().toString().substring(0, 8);
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn(name, type);
        bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        return table;
    }

    @Test
    void aMissingTableOrAPatternMatchingNothingIsNamedBeforeAnythingRuns() {
        String a = bed.newTable();
        assertThatThrownBy(() -> listed(a + ",no_such_table"))
                .hasMessageContaining("no_such_table");
        assertThatThrownBy(() -> listed(a + ",tablestore_cdc_meta"))
                .hasMessageContaining("names the meta table 'tablestore_cdc_meta'")
                .hasMessageContaining("remove it from the list");
        assertThatThrownBy(
                        () ->
                                bed.instanceReader()
                                        .option("table.pattern", "nothing_matches_[0-9]+")
                                        .option("tunnel.name", "multi")
                                        .load())
                .hasMessageContaining("nothing_matches_[0-9]+")
                .hasMessageContaining(a);
    }

    @Test
    void aCheckpointOfOneTableIsNotReadAsOneOfSeveral() throws Exception {
        String a = bed.newTable();
        String b = bed.newTable();
        bed.put(a, "a1", 1, "x");
        Path checkpoint = CdcTestBed.checkpointDir();
        BatchSink sink = new BatchSink();
        StreamingQuery first = bed.start(listed(a), checkpoint, sink);
        try {
            await(first, "1 change", TIMEOUT, () -> sink.count() >= 1);
        } finally {
            first.stop();
        }

        StreamingQuery second =
                bed.start(listed(a + "," + b), checkpoint, sink, Trigger.ProcessingTime(200));
        Await.until("the query to fail", TIMEOUT, () -> !second.isActive());
        assertThat(second.exception().get().getMessage())
                .contains("written by a tablestore-cdc source of one table")
                .contains("Use a new checkpoint location");
    }
}

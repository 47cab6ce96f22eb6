package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real readStream queries against the embedded emulator (issue items 1 and 2). */
class MicroBatchITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    static String describe(Row r) {
        Map<String, String> ops = r.getJavaMap(r.fieldIndex("_column_ops"));
        return r.getString(r.fieldIndex("id"))
                + " "
                + r.getString(r.fieldIndex("_op"))
                + " qty="
                + (r.isNullAt(r.fieldIndex("qty")) ? "null" : r.getLong(r.fieldIndex("qty")))
                + " name="
                + r.getString(r.fieldIndex("name"))
                + " ops="
                + new java.util.TreeMap<>(ops);
    }

    @Test
    void aStreamWithOriginColumnsGivesEachChangeItsBeforeImage() throws Exception {
        String table = bed.newTableWithBeforeImages("qty", "name");
        bed.put(table, "a", 1, "apple");
        bed.updateQtyDeleteName(table, "a", 5);
        bed.delete(table, "a");
        Dataset<Row> df = bed.reader(table, table + "_tunnel").load();
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "3 changes", TIMEOUT, () -> sink.count() >= 3);
        } finally {
            query.stop();
        }

        assertThat(df.schema().apply("_before").dataType().simpleString())
                .isEqualTo("map<string,string>");
        List<String> rows =
                sink.rows().stream()
                        .map(
                                r ->
                                        r.getString(r.fieldIndex("_op"))
                                                + " values="
                                                + new java.util.TreeMap<>(
                                                        r.getJavaMap(r.fieldIndex("_values")))
                                                + " before="
                                                + (r.isNullAt(r.fieldIndex("_before"))
                                                        ? "null"
                                                        : new java.util.TreeMap<>(
                                                                r.getJavaMap(
                                                                        r.fieldIndex("_before")))))
                        .toList();
        assertThat(rows)
                .containsExactly(
                        "PUT values={name=apple, qty=1} before=null",
                        "UPDATE values={qty=5} before={name=apple, qty=1}",
                        "DELETE values={} before={qty=5}");
        assertThat(bed.reader(bed.newTable(), "t").load().schema().fieldNames())
                .as("a stream without origin columns has no _before column")
                .doesNotContain("_before");
    }

    @Test
    void putUpdateAndDeleteArriveWithOperationValuesAndColumnOperations() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 1, "apple");
        bed.updateQtyDeleteName(table, "a", 5);
        bed.delete(table, "a");
        bed.put(table, "b", 2, "berry");
        StructType attributes =
                new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
        Dataset<Row> df = bed.reader(table, table + "_tunnel").schema(attributes).load();
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "4 changes", TIMEOUT, () -> sink.count() >= 4);
        } finally {
            query.stop();
        }

        List<String> rows = sink.rows().stream().map(MicroBatchITCase::describe).toList();
        assertThat(rows)
                .containsExactly(
                        "a PUT qty=1 name=apple ops={name=PUT, qty=PUT}",
                        "a UPDATE qty=5 name=null ops={name=DELETE_ALL_VERSION, qty=PUT}",
                        "a DELETE qty=null name=null ops={}",
                        "b PUT qty=2 name=berry ops={name=PUT, qty=PUT}");
        Row first = sink.rows().get(0);
        assertThat(first.getTimestamp(first.fieldIndex("_commit_ts"))).isNotNull();
        assertThat(first.getString(first.fieldIndex("_channel"))).isEqualTo("p-0");
    }

    @Test
    void withoutSchemaAttributeValuesArriveAsStrings() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 7, "apple");
        Dataset<Row> df = bed.reader(table, table + "_tunnel").load();
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "1 change", TIMEOUT, () -> sink.count() >= 1);
        } finally {
            query.stop();
        }

        Row row = sink.rows().get(0);
        assertThat(row.<String, String>getJavaMap(row.fieldIndex("_values")))
                .containsEntry("qty", "7")
                .containsEntry("name", "apple");
    }

    @Test
    void restartOnTheSameCheckpointLosesAndDuplicatesNothing() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 30; i++) {
            bed.put(table, "k" + i, i, "first");
        }
        Path checkpoint = CdcTestBed.checkpointDir();
        String tunnel = table + "_tunnel";
        BatchSink sink = new BatchSink();

        StreamingQuery first =
                bed.start(
                        bed.reader(table, tunnel).option("max.rows.per.channel", "7").load(),
                        checkpoint,
                        sink);
        try {
            await(first, "first rows", TIMEOUT, () -> sink.count() >= 10);
        } finally {
            first.stop();
        }
        for (int i = 30; i < 50; i++) {
            bed.put(table, "k" + i, i, "second");
        }
        StreamingQuery second =
                bed.start(
                        bed.reader(table, tunnel).option("max.rows.per.channel", "7").load(),
                        checkpoint,
                        sink);
        try {
            await(second, "all 50 rows", TIMEOUT, () -> sink.count() >= 50);
            bed.awaitTriggers(second, 5, TIMEOUT); // a duplicate would arrive in these batches
        } finally {
            second.stop();
        }

        List<String> ids = sink.rows().stream().map(r -> r.getString(r.fieldIndex("id"))).toList();
        assertThat(ids).hasSize(50).doesNotHaveDuplicates();
        assertThat(ids)
                .containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, 50).mapToObj(i -> "k" + i).toList());
        assertReplaysDeliveredTheSameRows(sink);
    }

    @Test
    void anIdleStreamRunsNoBatchesWritesNoMetaRowsAndThenPicksUpNewChanges() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 1, "apple");
        BatchSink sink = new BatchSink();
        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel").load(),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            await(query, "first change", TIMEOUT, () -> sink.count() >= 1);
            bed.awaitTriggers(query, 2, TIMEOUT); // the first batch is committed
            long batches = sink.deliveries.size();
            int metaRows = metaRowCount();
            bed.awaitTriggers(query, 7, TIMEOUT);

            assertThat(sink.deliveries).hasSize((int) batches);
            assertThat(metaRowCount()).isEqualTo(metaRows);
            // the idle channels are reported caught up at their committed positions
            bed.awaitTriggers(query, 1, TIMEOUT);
            await(query, "the catch-up report", TIMEOUT, () -> caughtUpAtCommitted(table));

            bed.put(table, "b", 2, "berry");
            await(query, "the change after the idle time", TIMEOUT, () -> sink.count() >= 2);
        } finally {
            query.stop();
        }
        assertThat(sink.rows().stream().map(r -> r.getString(0)).toList())
                .containsExactly("a", "b");
    }

    @Test
    void anIdleStreamWithTheDefaultTriggerBacksOffItsProbes() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a", 1, "apple");
        BatchSink sink = new BatchSink();
        StreamingQuery query =
                bed.start(
                        bed.reader(table, table + "_tunnel").load(),
                        CdcTestBed.checkpointDir(),
                        sink,
                        Trigger.ProcessingTime(0));
        try {
            await(query, "first change", TIMEOUT, () -> sink.count() >= 1);
            bed.awaitTriggers(query, 2, TIMEOUT); // the first batch is committed
            long before = bed.emulator.server().requestCount("tunnel/readrecords");
            // Spark asks for new data every ~10 ms while idle: without a backoff that is a
            // probe of the one channel at every trigger. With it, a few per second.
            bed.awaitTriggers(query, 200, TIMEOUT);
            long probes = bed.emulator.server().requestCount("tunnel/readrecords") - before;

            assertThat(probes).isBetween(1L, 40L);
            bed.put(table, "b", 2, "berry");
            await(query, "the change after the idle time", TIMEOUT, () -> sink.count() >= 2);
        } finally {
            query.stop();
        }
    }

    @Test
    void oldSnapshotsArePurgedAtCommit() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 16; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
        String tunnel = table + "_tunnel";
        BatchSink sink = new BatchSink();
        StreamingQuery query =
                bed.start(
                        bed.reader(table, tunnel)
                                .option("max.rows.per.channel", "2")
                                .option("meta.retention.batches", "2")
                                .load(),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            await(query, "16 rows", TIMEOUT, () -> sink.count() >= 16);
            await(
                    query,
                    "old snapshots purged at the last batches' commits",
                    TIMEOUT,
                    () -> batchLogSequences(table, tunnel).size() <= 3);
        } finally {
            query.stop();
        }

        assertThat(sink.batches).hasSizeGreaterThanOrEqualTo(8);
        assertThat(batchLogSequences(table, tunnel)).hasSizeLessThanOrEqualTo(3);
    }

    static java.util.Set<Long> batchLogSequences(String table, String tunnel) {
        io.tablestorecdc.checkpoint.model.TablestoreEndpoint endpoint =
                new io.tablestorecdc.checkpoint.model.TablestoreEndpoint(
                        bed.emulator.endpoint(),
                        bed.emulator.instanceName(),
                        io.tablestorecdc.checkpoint.model.TablestoreCredentials.of(
                                bed.emulator.accessKeyId(), CdcTestBed.SECRET));
        String tunnelId;
        try (var proxy = io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy.create(endpoint)) {
            tunnelId = proxy.describeTunnel(table, tunnel).tunnelId();
        }
        try (var client =
                io.tablestorecdc.checkpoint.meta.SdkMetaTableClient.connect(
                        endpoint, "tablestore_cdc_meta")) {
            java.util.Set<Long> sequences = new java.util.TreeSet<>();
            new io.tablestorecdc.checkpoint.meta.MetaTable(client)
                    .tunnel(tunnelId)
                    .batchLog()
                    .forEach(b -> sequences.add(b.sequence()));
            return sequences;
        }
    }

    /** Every row of the default meta table, all tunnels. */
    /** Whether the owner reports every channel of the newest snapshot caught up where it is. */
    private static boolean caughtUpAtCommitted(String table) {
        return bed.withMetaTable(
                java.time.Clock.systemUTC(),
                meta -> {
                    String tunnelId = bed.tunnelId(table, table + "_tunnel");
                    var rows = meta.tunnel(tunnelId);
                    var snapshot = rows.newestSnapshot();
                    var progress = rows.progress();
                    return snapshot.isPresent()
                            && progress.isPresent()
                            && snapshot.get().channels().values().stream()
                                    .filter(c -> !c.isFinished())
                                    .allMatch(
                                            c ->
                                                    progress.get()
                                                            .isCaughtUp(
                                                                    c.channelId(), c.position()));
                });
    }

    /** Rows of the meta table apart from the catch-up reports (one row per tunnel, rewritten). */
    static int metaRowCount() {
        com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria criteria =
                new com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria(
                        "tablestore_cdc_meta");
        criteria.setInclusiveStartPrimaryKey(
                com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder
                        .createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn(
                                "tunnel_id",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MIN)
                        .addPrimaryKeyColumn(
                                "batch",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MIN)
                        .addPrimaryKeyColumn(
                                "channel_id",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MIN)
                        .build());
        criteria.setExclusiveEndPrimaryKey(
                com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder
                        .createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn(
                                "tunnel_id",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MAX)
                        .addPrimaryKeyColumn(
                                "batch",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MAX)
                        .addPrimaryKeyColumn(
                                "channel_id",
                                com.alicloud.openservices.tablestore.model.PrimaryKeyValue.INF_MAX)
                        .build());
        criteria.setMaxVersions(1);
        return bed
                .sync
                .getRange(new com.alicloud.openservices.tablestore.model.GetRangeRequest(criteria))
                .getRows()
                .stream()
                .filter(
                        r ->
                                !r.getPrimaryKey()
                                        .getPrimaryKeyColumn("batch")
                                        .getValue()
                                        .asString()
                                        .equals("!progress"))
                .toList()
                .size();
    }

    static void assertReplaysDeliveredTheSameRows(BatchSink sink) {
        for (Map.Entry<Long, List<Row>> delivery : sink.deliveries) {
            assertThat(delivery.getValue())
                    .as("rows of batch %d", delivery.getKey())
                    .containsExactlyElementsOf(sink.batches.get(delivery.getKey()));
        }
    }
}

package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import io.tablestorecdc.emulator.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick start of docs/spark.md is the program {@link OrdersToSpark}, and it works on a fresh
 * setup: against an emulator holding only an {@code orders} table, it creates its tunnel and
 * delivers the changes written after it started. The many-tables examples are the code {@link
 * QuickStart} runs.
 */
class QuickStartDocITCase {

    private static final Path PAGE = Path.of("..", "docs", "spark.md");

    /** From the checkout's root: each Spark module compiles spark-connector's test sources. */
    private static final Path SOURCES = Path.of("..", "spark-connector", "src/test/java");

    private static final Path SOURCE = SOURCES.resolve("io/tablestorecdc/spark/QuickStart.java");

    private static final Path PROGRAM =
            SOURCES.resolve("io/tablestorecdc/spark/OrdersToSpark.java");

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
    void thePagesCodeBlockIsTheCodeThatRuns() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int open = page.indexOf("```java\n", page.indexOf("## Quick start")) + "```java\n".length();
        String block = page.substring(open, page.indexOf("```\n", open));

        String program = Files.readString(PROGRAM, StandardCharsets.UTF_8);
        assertThat(block).isEqualTo(program.substring(program.indexOf("import ")));
    }

    @Test
    void itDeliversTheChangesOfAFreshTable(@TempDir Path dir) throws Exception {
        TableMeta meta = new TableMeta("orders");
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));

        StreamingQuery query =
                OrdersToSpark.start(
                        bed.spark,
                        bed.emulator.endpoint(),
                        bed.emulator.instanceName(),
                        bed.emulator.accessKeyId(),
                        CdcTestBed.SECRET,
                        dir.resolve("checkpoints/orders-to-spark").toString(),
                        dir.resolve("orders_changes").toString());
        try {
            awaitTunnel("orders", "orders-to-spark");
            bed.put("orders", "o1", 1, "one");
            bed.put("orders", "o2", 2, "two");
            bed.put("orders", "o3", 3, "three");

            // Spark keeps only the last 100 progress reports (one per trigger, idle ones too):
            // collect them by batch id while polling, so a batch is counted once and never lost.
            Map<Long, Long> rowsByBatch = new TreeMap<>();
            Await.until(
                    "3 rows delivered",
                    Duration.ofSeconds(120),
                    () -> {
                        assertThat(query.exception().isDefined())
                                .as("query failed: %s", query.exception())
                                .isFalse();
                        return deliveredRows(query, rowsByBatch) >= 3;
                    });
            assertThat(deliveredRows(query, rowsByBatch)).isEqualTo(3);
            query.processAllAvailable();
            assertThat(
                            bed
                                    .spark
                                    .read()
                                    .parquet(dir.resolve("orders_changes").toString())
                                    .select("id", "qty", "name", "_op")
                                    .collectAsList()
                                    .stream()
                                    .map(Row::toString)
                                    .sorted()
                                    .toList())
                    .containsExactly("[o1,1,one,PUT]", "[o2,2,two,PUT]", "[o3,3,three,PUT]");
        } finally {
            query.stop();
        }
    }

    private static long deliveredRows(StreamingQuery query, Map<Long, Long> rowsByBatch) {
        for (StreamingQueryProgress progress : query.recentProgress()) {
            rowsByBatch.put(progress.batchId(), progress.numInputRows());
        }
        return rowsByBatch.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The tunnel the query creates on its first trigger; changes before it are not read. */
    private static void awaitTunnel(String table, String tunnel) {
        TunnelClient tunnels = bed.emulator.newTunnelClient();
        try {
            Await.until(
                    "tunnel " + tunnel + " created",
                    Duration.ofSeconds(60),
                    () ->
                            tunnels
                                    .listTunnel(new ListTunnelRequest(table))
                                    .getTunnelInfos()
                                    .stream()
                                    .map(TunnelInfo::getTunnelName)
                                    .anyMatch(tunnel::equals));
        } finally {
            tunnels.shutdown();
        }
    }

    @Test
    void theManyTablesExampleIsTheCodeThatRuns() throws Exception {
        for (Path page : List.of(PAGE)) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            int open =
                    text.indexOf("```java\n", text.indexOf("## Many tables in one query"))
                            + "```java\n".length();
            String block = text.substring(open, text.indexOf("```\n", open));

            assertThat(block)
                    .as(page.toString())
                    .isEqualTo(snippet(QuickStart.TABLES_START, QuickStart.TABLES_END));
        }
    }

    @Test
    void theExampleThatWritesEachTableApartIsOnThePageAndWritesADirectoryPerTable(@TempDir Path dir)
            throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int open =
                page.indexOf("```java\n", page.indexOf("To write each table apart"))
                        + "```java\n".length();
        assertThat(page.substring(open, page.indexOf("```\n", open)))
                .isEqualTo(snippet(QuickStart.ROUTE_START, QuickStart.ROUTE_END));

        for (String table : List.of("sales_2023", "sales_2024")) {
            TableMeta meta = new TableMeta(table);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        }
        bed.put("sales_2023", "o1", 1, "one");
        bed.put("sales_2024", "o2", 2, "two");
        bed.put("sales_2024", "o3", 3, "three");
        Dataset<Row> changes =
                bed.instanceReader()
                        .option("table.name", "sales_2023,sales_2024")
                        .option("tunnel.name", "apart")
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .schema("qty BIGINT, name STRING")
                        .load();
        String out = dir.resolve("changes").toString();

        StreamingQuery query =
                QuickStart.eachTableApart(changes, dir.resolve("checkpoint").toString(), out);
        try {
            CdcTestBed.await(query, "3 rows", Duration.ofSeconds(60), () -> rowsWritten(out) >= 3);
        } finally {
            query.stop();
        }

        assertThat(
                        bed.spark.read().parquet(out + "/batch=*/_table=*").collectAsList().stream()
                                .map(r -> r.getAs("name").toString())
                                .sorted())
                .containsExactly("one", "three", "two");
        try (var tables = Files.find(Path.of(out), 2, (p, a) -> a.isDirectory())) {
            assertThat(tables.map(p -> p.getFileName().toString()))
                    .contains("_table=sales_2023", "_table=sales_2024");
        }
    }

    /** The rows the example's batches wrote so far (its progress reports roll over). */
    private static long rowsWritten(String out) {
        try (var files = Files.find(Path.of(out), 4, (p, a) -> p.toString().endsWith(".parquet"))) {
            return files.findAny().isEmpty()
                    ? 0
                    : bed.spark.read().parquet(out + "/batch=*/_table=*").count();
        } catch (java.io.IOException e) {
            return 0; // nothing written yet
        }
    }

    @Test
    void theManyTablesExampleReadsTheMatchingTablesButTheExcludedOne() throws Exception {
        for (String table : List.of("orders_2019", "orders_2025", "orders_2026")) {
            TableMeta meta = new TableMeta(table);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
            bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            bed.put(table, "o1", 1, table);
        }
        CdcTestBed.BatchSink sink = new CdcTestBed.BatchSink();

        StreamingQuery query =
                bed.start(
                        QuickStart.manyTables(
                                bed.spark,
                                bed.emulator.endpoint(),
                                bed.emulator.instanceName(),
                                bed.emulator.accessKeyId(),
                                CdcTestBed.SECRET),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            CdcTestBed.await(query, "2 rows", Duration.ofSeconds(60), () -> sink.count() >= 2);
            bed.awaitTriggers(query, 3, Duration.ofSeconds(60));
        } finally {
            query.stop();
        }

        assertThat(sink.rows().stream().map(r -> r.getAs("_table") + " " + r.getAs("name")))
                .containsExactlyInAnyOrder("orders_2025 orders_2025", "orders_2026 orders_2026");
    }

    /** The marked lines of QuickStart.java, without the method body's indentation. */
    private static String snippet(String start, String end) throws Exception {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        int from = source.indexOf(start + "\n") + start.length() + 1;
        int to = source.lastIndexOf("\n", source.indexOf("        " + end)) + 1;
        return source.substring(from, to)
                .lines()
                .map(line -> line.startsWith("        ") ? line.substring(8) : line)
                .collect(Collectors.joining("\n", "", "\n"));
    }
}

package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.CommittingListSink;
import io.tablestorecdc.flink.testing.FailOnce;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.common.configuration.Configuration;
import org.apache.flink.cdc.common.factories.DataSourceFactory;
import org.apache.flink.cdc.common.factories.Factory;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.common.source.DataSource;
import org.apache.flink.cdc.common.source.FlinkSourceProvider;
import org.apache.flink.cdc.runtime.typeutils.EventTypeInfo;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline source's {@code Source<Event>} read in a plain job against the emulator, as Flink
 * CDC tests its own sources: the events each reader emits, in order, across new columns, wider
 * values, before-images, two tables and a restore.
 */
class TablestorePipelineSourceITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final List<JobClient> jobs = new ArrayList<>();

    @AfterEach
    void cancelJobs() {
        jobs.forEach(FlinkJobs::cancelAndAwaitEnd);
    }

    @Test
    void aTableIsAnnouncedAsSampledThenEachNewColumnAndWiderTypeBeforeTheChangesCarryingIt()
            throws Exception {
        String table = bed.newTable("pl_evolve_");
        bed.put(table, "a", longColumn("v", 1), new Column("name", ColumnValue.fromString("x")));
        String run = "evolve-" + RUNS.incrementAndGet();
        jobs.add(run(run, options(table), 1, null));
        awaitLines(run, 2);

        bed.put(
                table,
                "b",
                longColumn("v", 2),
                new Column("name", ColumnValue.fromString("y")),
                new Column("price", ColumnValue.fromDouble(2.5)));
        bed.update(table, "a", new Column("v", ColumnValue.fromDouble(1.5)));
        bed.put(
                table,
                "c",
                longColumn("v", 3),
                new Column("blob", ColumnValue.fromBinary(new byte[] {1})));
        bed.delete(table, "b");
        awaitLines(run, 9);

        assertThat(EventStrings.Lines.of(run))
                .containsExactly(
                        "create " + table + " (id STRING NOT NULL, name STRING, v BIGINT)",
                        "insert " + table + " [a, x, 1]",
                        "add " + table + " price DOUBLE",
                        "insert " + table + " [b, y, 2, 2.5]",
                        "alter " + table + " v DOUBLE",
                        "update " + table + " [a, null, null, null] -> [a, null, 1.5, null]",
                        "add " + table + " blob BYTES",
                        "insert " + table + " [c, null, 3.0, null, 0x01]",
                        "delete " + table + " [b, null, null, null, null]");
    }

    @Test
    void aStreamWithBeforeImagesGivesUpdatesOfTheWholeRowAndDeletesOfIt() throws Exception {
        String table = bed.newTableWithBeforeImages("pl_image_", "v", "name");
        String run = "image-" + RUNS.incrementAndGet();
        jobs.add(run(run, options(table), 1, null));

        bed.put(table, "a", longColumn("v", 1), new Column("name", ColumnValue.fromString("x")));
        bed.update(table, "a", longColumn("v", 2));
        bed.put(table, "a", longColumn("v", 3)); // over the existing row: an update
        bed.deleteColumn(table, "a", "v"); // the last attribute: the row is gone
        bed.put(table, "b", longColumn("v", 4));
        bed.delete(table, "b");
        awaitLines(run, 8);

        assertThat(EventStrings.Lines.of(run))
                .containsExactly(
                        "create " + table + " (id STRING NOT NULL)",
                        "add " + table + " v BIGINT, name STRING",
                        "insert " + table + " [a, 1, x]",
                        "update " + table + " [a, 1, x] -> [a, 2, x]",
                        "update " + table + " [a, 2, x] -> [a, 3, null]",
                        "delete " + table + " [a, 3, null]",
                        "insert " + table + " [b, 4, null]",
                        "delete " + table + " [b, 4, null]");
    }

    @Test
    void twoTablesAcrossARestoreDeliverEachChangeOnceEachReaderAnnouncingItsTablesAgain(
            @TempDir Path savepoints) throws Exception {
        String prefix = "pl_two" + RUNS.incrementAndGet() + "_";
        String orders = bed.newTable(prefix + "orders_");
        String users = bed.newTable(prefix + "users_");
        Map<String, String> options = options(prefix + ".*");
        String first = "two-" + RUNS.incrementAndGet();
        JobClient running = run(first, options, 2, null);
        jobs.add(running);
        List<String> written = new ArrayList<>();
        bed.put(orders, "o1", longColumn("v", 1));
        written.add("insert " + orders + " [o1, 1]");
        bed.put(users, "u1", longColumn("v", 1));
        written.add("insert " + users + " [u1, 1]");
        bed.put(orders, "o2", longColumn("v", 2), new Column("note", ColumnValue.fromString("n")));
        written.add("insert " + orders + " [o2, 2, n]");
        awaitData(first, 3);

        String savepoint =
                running.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        jobs.remove(running);
        bed.put(users, "u2", longColumn("v", 2)); // while no job runs
        written.add("insert " + users + " [u2, 2]");
        String second = "two-" + RUNS.incrementAndGet();
        jobs.add(run(second, options, 2, savepoint));
        bed.put(orders, "o3", longColumn("v", 3), new Column("note", ColumnValue.fromString("m")));
        written.add("insert " + orders + " [o3, m, 3]");
        bed.delete(orders, "o1");
        written.add("delete " + orders + " [o1, null, null]");
        awaitData(second, 3);

        assertThat(EventStrings.Lines.of(first))
                .as("the new column announced before the first change carrying it")
                .containsSubsequence(
                        "add " + orders + " note STRING", "insert " + orders + " [o2, 2, n]");
        List<String> data = new ArrayList<>(dataLines(first));
        data.addAll(dataLines(second));
        assertThat(data)
                .as("each change once across the restore")
                .containsExactlyInAnyOrderElementsOf(written);
        List<String> restored = EventStrings.Lines.of(second);
        for (String table : List.of(orders, users)) {
            int created = indexOf(restored, l -> l.startsWith("create " + table + " "));
            int firstChange =
                    indexOf(
                            restored,
                            l -> !l.startsWith("create ") && l.contains(" " + table + " ["));
            assertThat(created)
                    .as("the restored job announces %s before its first change of it", table)
                    .isNotNegative()
                    .isLessThan(firstChange);
        }
        assertThat(restored)
                .as("the column added before the restore, announced with the table, not again")
                .contains("create " + orders + " (id STRING NOT NULL, note STRING, v BIGINT)")
                .noneMatch(line -> line.startsWith("add "));
    }

    @Test
    void aTaskFailureAndASplitDeliverEachChangeOnceToAnExactlyOnceSink() throws Exception {
        String table = bed.newTable("pl_failover_");
        String sink = "failover-" + RUNS.incrementAndGet();
        FailOnce.arm(sink);
        org.apache.flink.configuration.Configuration restarts =
                new org.apache.flink.configuration.Configuration();
        restarts.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        restarts.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(restarts);
        env.enableCheckpointing(200);
        env.fromSource(
                        source(options(table)),
                        WatermarkStrategy.noWatermarks(),
                        "tablestore",
                        new EventTypeInfo())
                .setParallelism(2)
                .map(new EventStrings())
                .setParallelism(2)
                .filter(line -> !line.startsWith("create ") && !line.startsWith("add "))
                .setParallelism(2)
                .map(new FailOnce(sink, "insert " + table + " [p2,"))
                .setParallelism(2)
                .sinkTo(new CommittingListSink(sink))
                .setParallelism(1);
        jobs.add(env.executeAsync("pipeline " + sink));
        List<String> written = new ArrayList<>();

        writeRound(table, 1, written);
        awaitCommitted(sink, written.size());
        bed.emulator().tunnels().split(table, EmulatorBed.key("m"));
        writeRound(table, 2, written); // the task fails at p2: the job restarts from a checkpoint
        writeRound(table, 3, written);
        awaitCommitted(sink, written.size());

        assertThat(FailOnce.fired(sink)).as("the task failed once").isTrue();
        List<String> committed = CommittingListSink.committed(sink);
        assertThat(committed).containsExactlyInAnyOrderElementsOf(written);
        assertThat(perKey(committed)).isEqualTo(perKey(written));
    }

    /** Puts, updates and deletes keys on both sides of "m". */
    private static void writeRound(String table, int round, List<String> written) {
        for (String k : List.of("c", "h", "p", "x")) {
            String id = k + round;
            bed.put(table, id, longColumn("v", round));
            written.add("insert " + table + " [" + id + ", " + round + "]");
            bed.update(table, id, longColumn("v", round * 10L));
            written.add(
                    "update " + table + " [" + id + ", null] -> [" + id + ", " + round * 10 + "]");
        }
        bed.delete(table, "h" + round);
        written.add("delete " + table + " [h" + round + ", null]");
    }

    /** Each key's changes in their order. */
    private static Map<String, List<String>> perKey(List<String> lines) {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (String line : lines) {
            String key = line.substring(line.indexOf('[') + 1, line.indexOf(','));
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(line);
        }
        return out;
    }

    private void awaitCommitted(String sink, int count) {
        Await.until(
                count + " committed changes of " + sink,
                TIMEOUT,
                () -> {
                    requireNoJobFailed();
                    return CommittingListSink.committed(sink).size() >= count;
                });
    }

    @Test
    void theFactoryIsFoundByItsTypeAndItsMetadataListsTheTablesWithTheirSchemas() {
        String table = bed.newTable("pl_meta_");
        bed.put(table, "a", longColumn("v", 1));
        Map<String, String> declared = options(table);
        declared.put("schema.mode", "declared");
        declared.put("schema.columns." + table, "qty BIGINT, note STRING");

        DataSource sampled = create(options(table));
        DataSource fixed = create(declared);

        assertThat(sampled.isParallelMetadataSource()).isTrue();
        assertThat(sampled.getMetadataAccessor().listTables(null, bed.emulator().instanceName()))
                .extracting(id -> id.getTableName())
                .containsExactly(table);
        assertThat(
                        sampled.getMetadataAccessor()
                                .getTableSchema(
                                        org.apache.flink.cdc.common.event.TableId.tableId(
                                                bed.emulator().instanceName(), table))
                                .toString())
                .contains("`id` STRING NOT NULL", "`v` BIGINT", "primaryKeys=id");
        assertThat(
                        fixed.getMetadataAccessor()
                                .getTableSchema(
                                        org.apache.flink.cdc.common.event.TableId.tableId(
                                                bed.emulator().instanceName(), table))
                                .getColumnNames())
                .containsExactly("id", "qty", "note");
    }

    // ---- harness ----

    private Map<String, String> options(String tables) {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", bed.emulator().endpoint());
        options.put("instance.name", bed.emulator().instanceName());
        options.put("access.key.id", bed.emulator().accessKeyId());
        options.put("access.key.secret", bed.emulator().accessKeySecret());
        options.put("tables", tables);
        options.put("tunnel.name", "pipeline");
        options.put("tunnel.create", "stream");
        options.put("tunnel.start", "earliest");
        options.put("meta.table", "pipeline_meta");
        options.put("discovery.interval", "200ms");
        options.put("table.discovery.interval", "1s");
        return options;
    }

    static DataSource create(Map<String, String> options) {
        for (Factory factory : ServiceLoader.load(Factory.class)) {
            if (factory.identifier().equals("tablestore")) {
                return ((DataSourceFactory) factory)
                        .createDataSource(
                                new FactoryHelper.DefaultContext(
                                        Configuration.fromMap(options),
                                        new Configuration(),
                                        TablestorePipelineSourceITCase.class.getClassLoader()));
            }
        }
        throw new AssertionError("No Flink CDC factory of type 'tablestore' on the class path");
    }

    /** The provider's {@code Source<Event>}, as a pipeline gets it. */
    private static org.apache.flink.api.connector.source.Source<
                    org.apache.flink.cdc.common.event.Event, ?, ?>
            source(Map<String, String> options) {
        return ((FlinkSourceProvider) create(options).getEventSourceProvider()).getSource();
    }

    /** Runs the source at {@code parallelism}, each reader's events rendered where emitted. */
    private JobClient run(
            String name, Map<String, String> options, int parallelism, String savepoint)
            throws Exception {
        org.apache.flink.configuration.Configuration config =
                new org.apache.flink.configuration.Configuration();
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.enableCheckpointing(200);
        env.fromSource(
                        source(options),
                        WatermarkStrategy.noWatermarks(),
                        "tablestore",
                        new EventTypeInfo())
                .setParallelism(parallelism)
                .uid("source")
                .map(new EventStrings())
                .setParallelism(parallelism)
                .uid("render")
                .addSink(new EventStrings.Lines(name))
                .setParallelism(1)
                .uid("lines");
        return env.executeAsync("pipeline " + name);
    }

    private static Column longColumn(String name, long value) {
        return new Column(name, ColumnValue.fromLong(value));
    }

    private void awaitLines(String run, int count) {
        Await.until(
                count + " events of " + run,
                TIMEOUT,
                () -> {
                    requireNoJobFailed();
                    return EventStrings.Lines.of(run).size() >= count;
                });
    }

    private void awaitData(String run, int count) {
        Await.until(
                count + " data events of " + run,
                TIMEOUT,
                () -> {
                    requireNoJobFailed();
                    return dataLines(run).size() >= count;
                });
    }

    private static List<String> dataLines(String run) {
        return EventStrings.Lines.of(run).stream()
                .filter(
                        l ->
                                l.startsWith("insert ")
                                        || l.startsWith("update ")
                                        || l.startsWith("delete "))
                .toList();
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> line) {
        for (int i = 0; i < lines.size(); i++) {
            if (line.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private void requireNoJobFailed() {
        for (JobClient job : jobs) {
            if (job.getJobStatus().join() == JobStatus.FAILED) {
                Throwable cause = job.getJobExecutionResult().handle((r, e) -> e).join();
                throw new AssertionError(
                        "Job failed: " + ExceptionUtils.stringifyException(cause), cause);
            }
        }
    }
}

package io.tablestorecdc.e2e.bench;

import static io.tablestorecdc.e2e.bench.ThroughputBenchmark.say;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowChange;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Part {@code changelog}: an upsert SQL pipeline, {@code INSERT INTO replica SELECT ... FROM src}
 * from the {@code tablestore-cdc} source into a {@code tablestore} sink keyed by the same primary
 * key, with {@code 'changelog.mode' = 'upsert'} (the default) against {@code 'all'}. One table
 * whose stream carries before-images of every attribute column (origin columns), split into {@value
 * #PARTITIONS} partitions: {@code changelogKeys} rows put, each updated {@code changelogUpdates}
 * times (one column per update), every tenth deleted before the last update round; one stream
 * tunnel per variant and round, all created before the writes. Per round and variant a new replica
 * table and a new job (parallelism 2, a checkpoint every second, the hashmap state backend writing
 * to a directory): its drain time from submission until the replica equals the source table (a
 * GetRange of both), changes per second over it, and the state of a checkpoint taken after the
 * drain, read from its {@code _metadata}. The plans' stateful operators come from EXPLAIN.
 */
final class ChangelogPart {

    static final int PARTITIONS = 4;
    private static final int PARALLELISM = 2;
    private static final int BATCH = 200;
    private static final List<String> MODES = List.of("upsert", "all");
    private static final String SOURCE = "changelog_src";
    private static final String PAYLOAD = "x".repeat(48);

    private final ThroughputBenchmark bench;
    private final BenchEmulator emulator;

    ChangelogPart(ThroughputBenchmark bench) {
        this.bench = bench;
        this.emulator = bench.emulator();
    }

    /** One job's figures. */
    record Run(
            String mode,
            int round,
            double seconds,
            double changesPerSecond,
            long checkpointId,
            long stateBytes,
            long keyedStateBytes,
            int operatorsWithKeyedState) {}

    void run() throws Exception {
        int keys = bench.settings().changelogKeys();
        int updates = bench.settings().changelogUpdates();
        int runs = Math.max(1, bench.settings().runs());
        createSource(keys);
        for (int round = 0; round <= runs; round++) {
            for (String mode : MODES) {
                createTunnel(tunnel(mode, round));
            }
        }
        long start = System.nanoTime();
        Written written = write(keys, updates);
        Map<String, List<Object>> expected = readTable(SOURCE);
        if (expected.size() != written.live()) {
            throw new IllegalStateException(
                    "The source table holds " + expected.size() + " rows, not " + written.live());
        }
        say(
                "%nUpsert SQL pipeline, tablestore-cdc into tablestore by the same key, %d keys,"
                        + " %d changes (%d puts, %d updates, %d deletes) written in %.1f s,"
                        + " %d partitions, parallelism %d:",
                keys,
                written.changes(),
                keys,
                written.updates(),
                written.deletes(),
                (System.nanoTime() - start) / 1e9,
                PARTITIONS,
                PARALLELISM);
        Map<String, Object> plans = new LinkedHashMap<>();
        for (String mode : MODES) {
            plans.put(mode, plan(mode));
        }
        List<Run> runsDone = new ArrayList<>();
        Map<String, List<Run>> byMode = new LinkedHashMap<>();
        for (int round = 0; round <= runs; round++) {
            // Alternate the order, so that neither mode always runs second in a round.
            List<String> order = round % 2 == 0 ? MODES : List.of(MODES.get(1), MODES.get(0));
            Map<String, Run> measured = new LinkedHashMap<>();
            for (String mode : order) {
                measured.put(mode, job(mode, round, written, expected));
            }
            StringBuilder line = new StringBuilder();
            for (String mode : MODES) {
                Run r = measured.get(mode);
                line.append(
                        String.format(
                                Locale.ROOT,
                                "%s%s %.0f changes/s (%.1f s), state %.0f KB (keyed %.0f KB)",
                                line.length() == 0 ? "" : "; ",
                                mode,
                                r.changesPerSecond(),
                                r.seconds(),
                                r.stateBytes() / 1024.0,
                                r.keyedStateBytes() / 1024.0));
            }
            say("  %s %d: %s", round == 0 ? "warm-up" : "round", round, line);
            if (round > 0) {
                measured.values().forEach(runsDone::add);
                measured.forEach(
                        (m, r) -> byMode.computeIfAbsent(m, k -> new ArrayList<>()).add(r));
            }
        }
        double[] rate = ratio(byMode, Run::changesPerSecond);
        double[] state = ratio(byMode, r -> (double) r.stateBytes());
        double[] keyed = ratio(byMode, r -> (double) r.keyedStateBytes());
        say(
                "  all over upsert, paired by round: changes/s %s; checkpointed state %s; keyed"
                        + " state %s",
                PairedRatios.describe(rate),
                PairedRatios.describe(state),
                PairedRatios.describe(keyed));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("keys", keys);
        json.put("updatesPerKey", updates);
        json.put("changes", written.changes());
        json.put("deletes", written.deletes());
        json.put("liveRows", written.live());
        json.put("partitions", PARTITIONS);
        json.put("parallelism", PARALLELISM);
        json.put("plans", plans);
        Map<String, Object> medians = new LinkedHashMap<>();
        byMode.forEach(
                (mode, list) -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("changesPerSecond", median(list, Run::changesPerSecond));
                    m.put("seconds", median(list, Run::seconds));
                    m.put("stateBytes", median(list, r -> (double) r.stateBytes()));
                    m.put("keyedStateBytes", median(list, r -> (double) r.keyedStateBytes()));
                    medians.put(mode, m);
                });
        json.put("medians", medians);
        json.put("allOverUpsertChangesPerSecond", ConsumerFigures.median(rate));
        json.put("allOverUpsertStateBytes", ConsumerFigures.median(state));
        json.put("runs", runsDone.stream().map(ThroughputBenchmark::record).toList());
        bench.report("changelog", json);
    }

    // ---- the data -------------------------------------------------------------------------------

    private void createSource(int keys) {
        TableMeta meta = new TableMeta(SOURCE);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        StreamSpecification stream = new StreamSpecification(true, 24);
        stream.addOriginColumnsToGet(new String[] {"n", "s", "t"});
        create.setStreamSpecification(stream);
        try (Clients c = new Clients()) {
            c.sync.createTable(create);
        }
        for (int p = 1; p < PARTITIONS; p++) {
            emulator.split(SOURCE, key((long) keys * p / PARTITIONS));
        }
    }

    private void createTunnel(String name) {
        bench.tunnels().createTunnel(new CreateTunnelRequest(SOURCE, name, TunnelType.Stream));
    }

    private static String tunnel(String mode, int round) {
        return "changelog_" + mode + "_" + round;
    }

    /** How many changes were written, and the keys whose last change closes each partition. */
    record Written(long changes, long updates, long deletes, long live, List<Long> lastKeys) {}

    /**
     * Puts every key, then {@code updates - 1} rounds of partial updates (column {@code n} in odd
     * rounds, {@code t} in even ones), deletes every tenth key, then the last update round over the
     * live keys; one BatchWriteRow of {@value #BATCH} changes at a time, so the stream's order is
     * the write order.
     */
    private Written write(int keys, int updates) {
        long changes = 0;
        long updated = 0;
        long deleted = 0;
        try (Clients c = new Clients()) {
            List<RowChange> pending = new ArrayList<>();
            for (int i = 0; i < keys; i++) {
                RowPutChange put = new RowPutChange(SOURCE, key(i));
                put.addColumn(new Column("n", ColumnValue.fromLong(i)));
                put.addColumn(new Column("s", ColumnValue.fromString(PAYLOAD)));
                put.addColumn(new Column("t", ColumnValue.fromString("t0")));
                changes += send(c.sync, pending, put);
            }
            for (int u = 1; u <= updates; u++) {
                if (u == updates) {
                    for (int i = 0; i < keys; i += 10) {
                        changes += send(c.sync, pending, new RowDeleteChange(SOURCE, key(i)));
                        deleted++;
                    }
                }
                for (int i = 0; i < keys; i++) {
                    if (u == updates && i % 10 == 0) {
                        continue;
                    }
                    changes += send(c.sync, pending, update(i, u));
                    updated++;
                }
            }
            changes += flush(c.sync, pending);
        }
        List<Long> lastKeys = new ArrayList<>();
        for (int p = 1; p <= PARTITIONS; p++) {
            long last = (long) keys * p / PARTITIONS - 1;
            if (updates > 0 && last % 10 == 0) {
                last--;
            }
            if (last >= 0) {
                lastKeys.add(last);
            }
        }
        long live = updates > 0 ? keys - deleted : keys;
        return new Written(changes, updated, deleted, live, lastKeys);
    }

    private static RowUpdateChange update(long i, int u) {
        RowUpdateChange update = new RowUpdateChange(SOURCE, key(i));
        if (u % 2 == 1) {
            update.put(new Column("n", ColumnValue.fromLong(i + 1_000_000L * u)));
        } else {
            update.put(new Column("t", ColumnValue.fromString("t" + u)));
        }
        return update;
    }

    private static int send(SyncClient sync, List<RowChange> pending, RowChange change) {
        pending.add(change);
        return pending.size() >= BATCH ? flush(sync, pending) : 0;
    }

    private static int flush(SyncClient sync, List<RowChange> pending) {
        if (pending.isEmpty()) {
            return 0;
        }
        BatchWriteRowRequest request = new BatchWriteRowRequest();
        pending.forEach(request::addRowChange);
        BatchWriteRowResponse response = sync.batchWriteRow(request);
        if (!response.isAllSucceed()) {
            throw new IllegalStateException(
                    "BatchWriteRow failed for "
                            + response.getFailedRows().size()
                            + " changes: "
                            + response.getFailedRows().get(0).getError());
        }
        int n = pending.size();
        pending.clear();
        return n;
    }

    static PrimaryKey key(long i) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(SinkPart.id(i)))
                .build();
    }

    /** A table's rows as GetRange reads them: key to (n, s, t). */
    private Map<String, List<Object>> readTable(String table) {
        Map<String, List<Object>> rows = new TreeMap<>();
        try (Clients c = new Clients()) {
            PrimaryKey next =
                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                            .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                            .build();
            PrimaryKey end =
                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                            .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                            .build();
            while (next != null) {
                RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(table);
                criteria.setInclusiveStartPrimaryKey(next);
                criteria.setExclusiveEndPrimaryKey(end);
                criteria.setMaxVersions(1);
                GetRangeResponse response = c.sync.getRange(new GetRangeRequest(criteria));
                for (Row row : response.getRows()) {
                    rows.put(
                            row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString(),
                            values(row));
                }
                next = response.getNextStartPrimaryKey();
            }
        }
        return rows;
    }

    private static List<Object> values(Row row) {
        List<Object> values = new ArrayList<>();
        for (String column : List.of("n", "s", "t")) {
            Column c = row.getLatestColumn(column);
            values.add(c == null ? null : c.getValue().toString());
        }
        return values;
    }

    /** Whether the replica's rows of the keys that end each partition's changes are final. */
    private boolean lastKeysArrived(
            String replica, Written written, Map<String, List<Object>> expected) {
        try (Clients c = new Clients()) {
            for (long i : written.lastKeys()) {
                SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(replica, key(i));
                criteria.setMaxVersions(1);
                Row row = c.sync.getRow(new GetRowRequest(criteria)).getRow();
                if (!Objects.equals(
                        row == null ? null : values(row), expected.get(SinkPart.id(i)))) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- the jobs -------------------------------------------------------------------------------

    private StreamTableEnvironment tableEnvironment(Configuration conf) {
        return StreamTableEnvironment.create(
                StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, conf));
    }

    private void createTables(StreamTableEnvironment tEnv, String mode, String tunnel, String to) {
        tEnv.executeSql(
                "CREATE TABLE src (id STRING, n BIGINT, s STRING, t STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('connector' = 'tablestore-cdc'"
                        + connection()
                        + option("table.name", SOURCE)
                        + option("tunnel.name", tunnel)
                        + option("discovery.interval", "1s")
                        + option("changelog.mode", mode)
                        + ")");
        tEnv.executeSql(
                "CREATE TABLE replica (id STRING, n BIGINT, s STRING, t STRING, PRIMARY KEY (id)"
                        + " NOT ENFORCED) WITH ('connector' = 'tablestore'"
                        + connection()
                        + option("table.name", to)
                        + ")");
    }

    private static final String INSERT = "INSERT INTO replica SELECT id, n, s, t FROM src";

    /** The plan's stateful operators, from EXPLAIN (the optimized plan and the job graph). */
    private Map<String, Object> plan(String mode) {
        String replica = createReplica("changelog_plan_" + mode);
        Configuration conf = new Configuration();
        conf.setString("execution.checkpointing.interval", "1s"); // as the jobs run
        StreamTableEnvironment tEnv = tableEnvironment(conf);
        createTables(tEnv, mode, tunnel(mode, 0), replica);
        String explained =
                tEnv.explainSql(
                        INSERT, ExplainDetail.CHANGELOG_MODE, ExplainDetail.JSON_EXECUTION_PLAN);
        String optimized =
                explained.substring(
                        explained.indexOf("== Optimized Physical Plan =="),
                        Math.max(
                                explained.indexOf("== Optimized Execution Plan =="),
                                explained.indexOf("== Optimized Physical Plan ==")));
        try {
            Files.createDirectories(bench.settings().out());
            Files.writeString(
                    bench.settings().out().resolve("changelog-plan-" + mode + ".txt"), explained);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("changelogNormalize", explained.contains("ChangelogNormalize"));
        // The planner names the source provider's last operator TableSourceScan: upsert mode's
        // MergePartialUpdates shows as a TableSourceScan node behind a hash exchange.
        plan.put("mergePartialUpdates", keyedScan(explained));
        plan.put("hashExchanges", count(explained, "\"ship_strategy\" : \"HASH\""));
        plan.put("sinkUpsertMaterializer", explained.contains("SinkUpsertMaterializer"));
        plan.put("optimizedPlan", optimized.strip().lines().toList());
        say(
                "  plan, %s: ChangelogNormalize %s, MergePartialUpdates %s,"
                        + " SinkUpsertMaterializer %s, hash exchanges %s%n    %s",
                mode,
                plan.get("changelogNormalize"),
                plan.get("mergePartialUpdates"),
                plan.get("sinkUpsertMaterializer"),
                plan.get("hashExchanges"),
                optimized.strip().replace("\n", "\n    "));
        return plan;
    }

    /** Whether the JSON execution plan has a TableSourceScan node fed by a hash exchange. */
    private static boolean keyedScan(String explained) {
        // Each piece: a node's contents, then its inputs (predecessors), up to the next node's.
        for (String node : explained.split("\"contents\" :")) {
            int end = node.indexOf('\n');
            String contents = end < 0 ? node : node.substring(0, end);
            if (contents.contains("TableSourceScan")
                    && node.contains("\"ship_strategy\" : \"HASH\"")) {
                return true;
            }
        }
        return false;
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    private String createReplica(String name) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        try (Clients c = new Clients()) {
            c.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        }
        return name;
    }

    private Run job(String mode, int round, Written written, Map<String, List<Object>> expected)
            throws Exception {
        String replica = createReplica("changelog_replica_" + mode + "_" + round);
        Path checkpoints = Files.createTempDirectory("changelog-bench-" + mode);
        try {
            Configuration conf = new Configuration();
            conf.setString("execution.checkpointing.interval", "1s");
            conf.setString("state.backend.type", "hashmap");
            conf.setString("execution.checkpointing.storage", "filesystem");
            conf.setString("execution.checkpointing.dir", checkpoints.toUri().toString());
            conf.setString("execution.checkpointing.num-retained", "3");
            conf.setString("pipeline.generic-types", "false");
            StreamTableEnvironment tEnv = tableEnvironment(conf);
            createTables(tEnv, mode, tunnel(mode, round), replica);
            long start = System.nanoTime();
            TableResult result = tEnv.executeSql(INSERT);
            JobClient job = result.getJobClient().orElseThrow();
            boolean ended = false;
            try {
                awaitReplica(job, replica, written, expected);
                double seconds = (System.nanoTime() - start) / 1e9;
                long drainedAt = latestCheckpoint(checkpoints).map(Checkpoint::id).orElse(0L);
                Checkpoint after = awaitCheckpoint(job, checkpoints, drainedAt + 2);
                Run run =
                        new Run(
                                mode,
                                round,
                                seconds,
                                written.changes() / seconds,
                                after.id(),
                                after.stateBytes(),
                                after.keyedStateBytes(),
                                after.keyedOperators());
                job.cancel().get(60, TimeUnit.SECONDS);
                job.getJobExecutionResult().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
                ended = true;
                Map<String, List<Object>> end = readTable(replica);
                if (!end.equals(expected)) {
                    throw new IllegalStateException(
                            "After the "
                                    + mode
                                    + " job the replica holds "
                                    + end.size()
                                    + " rows that differ from the source's "
                                    + expected.size());
                }
                return run;
            } finally {
                if (!ended) {
                    // A failed run: end the job whatever state it is in (its cluster goes with it).
                    job.cancel().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
                }
            }
        } finally {
            deleteTree(checkpoints);
        }
    }

    /** Until the replica equals the source table: cheap probes first, then a whole GetRange. */
    private void awaitReplica(
            JobClient job, String replica, Written written, Map<String, List<Object>> expected)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (true) {
            if (lastKeysArrived(replica, written, expected)) {
                Map<String, List<Object>> rows = readTable(replica);
                if (rows.equals(expected)) {
                    return;
                }
            }
            checkRunning(job);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "The replica "
                                + replica
                                + " holds "
                                + readTable(replica).size()
                                + " rows that are not the source's "
                                + expected.size()
                                + " after 5 minutes");
            }
            Thread.sleep(20);
        }
    }

    private static void checkRunning(JobClient job) throws Exception {
        JobStatus status = job.getJobStatus().get(60, TimeUnit.SECONDS);
        if (status.isGloballyTerminalState()) {
            try {
                job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("The job ended " + status, e);
            }
            throw new IllegalStateException("The job ended " + status + " before the drain");
        }
    }

    // ---- checkpoints ----------------------------------------------------------------------------

    /** A completed checkpoint's state, as its {@code _metadata} gives it. */
    record Checkpoint(long id, long stateBytes, long keyedStateBytes, int keyedOperators) {}

    private static Checkpoint awaitCheckpoint(JobClient job, Path dir, long id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            Optional<Checkpoint> latest = latestCheckpoint(dir);
            if (latest.isPresent() && latest.get().id() >= id) {
                return latest.get();
            }
            checkRunning(job);
            Thread.sleep(50);
        }
        throw new IllegalStateException("No checkpoint " + id + " in 2 minutes under " + dir);
    }

    /** The newest completed checkpoint ({@code chk-N} with its {@code _metadata}) under dir. */
    private static Optional<Checkpoint> latestCheckpoint(Path dir) throws IOException {
        List<Path> done;
        try (Stream<Path> files = Files.walk(dir, 3)) {
            done =
                    files.filter(p -> p.getFileName().toString().equals("_metadata"))
                            .filter(p -> p.getParent().getFileName().toString().startsWith("chk-"))
                            .sorted(Comparator.comparingLong(ChangelogPart::checkpointId))
                            .toList();
        } catch (java.io.UncheckedIOException e) {
            return Optional.empty(); // a checkpoint deleted while listed: look again
        }
        for (int i = done.size() - 1; i >= 0; i--) {
            try {
                return Optional.of(read(done.get(i)));
            } catch (NoSuchFileException e) {
                // subsumed and deleted meanwhile
            }
        }
        return Optional.empty();
    }

    private static long checkpointId(Path metadata) {
        return Long.parseLong(metadata.getParent().getFileName().toString().substring(4));
    }

    private static Checkpoint read(Path metadata) throws IOException {
        CheckpointMetadata meta;
        try (InputStream in = Files.newInputStream(metadata)) {
            meta =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            ChangelogPart.class.getClassLoader(),
                            metadata.getParent().toString());
        }
        long total = 0;
        long keyed = 0;
        int keyedOperators = 0;
        for (OperatorState operator : meta.getOperatorStates()) {
            total += operator.getStateSize();
            long operatorKeyed = 0;
            for (OperatorSubtaskState subtask : operator.getStates()) {
                operatorKeyed += subtask.getManagedKeyedState().getStateSize();
                operatorKeyed += subtask.getRawKeyedState().getStateSize();
            }
            keyed += operatorKeyed;
            if (operatorKeyed > 0) {
                keyedOperators++;
            }
        }
        return new Checkpoint(meta.getCheckpointId(), total, keyed, keyedOperators);
    }

    /** Deletes the job's checkpoints; the cluster may still be disposing of some, so retry. */
    private static void deleteTree(Path dir) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
                return;
            } catch (IOException | java.io.UncheckedIOException e) {
                if (attempt >= 20) {
                    throw e;
                }
            }
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    private String connection() {
        return option("endpoint", emulator.endpoint())
                + option("instance.name", emulator.instanceName())
                + option("access.key.id", emulator.accessKeyId())
                + option("access.key.secret", emulator.accessKeySecret());
    }

    private static String option(String key, String value) {
        return ", '" + key + "' = '" + value + "'";
    }

    private static double[] ratio(
            Map<String, List<Run>> byMode, java.util.function.ToDoubleFunction<Run> figure) {
        List<Run> upsert = byMode.getOrDefault("upsert", List.of());
        List<Run> all = byMode.getOrDefault("all", List.of());
        int rounds = Math.min(upsert.size(), all.size());
        double[] r = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            r[i] = figure.applyAsDouble(all.get(i)) / figure.applyAsDouble(upsert.get(i));
        }
        return r;
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
        return ConsumerFigures.median(runs.stream().mapToDouble(figure).toArray());
    }

    private final class Clients implements AutoCloseable {
        final SyncClient sync = emulator.newSyncClient();

        @Override
        public void close() {
            sync.shutdown();
        }
    }
}

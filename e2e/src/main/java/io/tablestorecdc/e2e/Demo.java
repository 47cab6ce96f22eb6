package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.cli.TablestoreCdcCli;
import io.tablestorecdc.e2e.DemoSettings.Engine;
import io.tablestorecdc.e2e.flink.FlinkReplication;
import io.tablestorecdc.e2e.orders.EmulatorAdminPartitions;
import io.tablestorecdc.e2e.orders.OrdersTable;
import io.tablestorecdc.e2e.orders.PartitionControl;
import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.e2e.orders.Workload;
import io.tablestorecdc.e2e.spark.SparkReplication;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The demo: a Tablestore table (the embedded emulator by default) under a stream of inserts,
 * partial updates and deletes, with a split and a merge, replicated by a Spark query and a Flink
 * job through their tunnels; at the end each replica is compared with the source table.
 *
 * <p>Exit status 0 only when every replica matches; 1 on a mismatch or failure; 2 on bad flags.
 */
public final class Demo {

    /** Where both connectors keep their batch snapshots (each engine's default). */
    static final String META_TABLE = "tablestore_cdc_meta";

    /** How long the demo waits for the consumers to report their channels caught up. */
    private static final Duration LAG_REPORT_TIMEOUT = Duration.ofSeconds(60);

    private final DemoSettings settings;
    private final Console console;
    private List<ResourceWatch.Sample> watched = List.of();

    Demo(DemoSettings settings, Console console) {
        this.settings = settings;
        this.console = console;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the demo with {@code args}, printing to {@code out}; returns the exit status. */
    public static int run(String[] args, PrintStream out) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            out.println(DemoSettings.USAGE);
            return 0;
        }
        DemoSettings settings;
        try {
            settings = DemoSettings.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            out.println(DemoSettings.USAGE);
            return 2;
        }
        try {
            return new Demo(settings, new Console(out)).run() ? 0 : 1;
        } catch (IllegalStateException e) {
            out.println("demo   FAILED: " + e.getMessage()); // names the problem and the fix
            return 1;
        } catch (Exception e) {
            out.println("demo   FAILED: " + e);
            e.printStackTrace(out);
            return 1;
        }
    }

    /** Runs the demo; true when every replica matched. */
    boolean run() throws Exception {
        if (settings.target().isPresent()) {
            DemoTarget target = settings.target().get();
            console.say("demo", "using the instance at " + target);
            Optional<PartitionControl> admin = EmulatorAdminPartitions.at(target.endpoint());
            admin.ifPresent(a -> console.say("demo", "it is a tablestore-emulator: will reshard"));
            return runOn(target, admin);
        }
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            console.say(
                    "demo", "started the embedded Tablestore emulator at " + emulator.endpoint());
            DemoTarget target =
                    new DemoTarget(
                            emulator.endpoint(),
                            emulator.instanceName(),
                            emulator.accessKeyId(),
                            emulator.accessKeySecret());
            return runOn(target, Optional.of(partitionControl(emulator)));
        }
    }

    private static PartitionControl partitionControl(TablestoreEmulator emulator) {
        return new PartitionControl() {
            @Override
            public List<String> split(String table, String orderId) {
                return emulator.tunnels().split(table, OrdersTable.key(orderId));
            }

            @Override
            public String merge(String table, String orderId) {
                return emulator.tunnels().merge(table, OrdersTable.key(orderId));
            }
        };
    }

    private boolean runOn(DemoTarget target, Optional<PartitionControl> partitions)
            throws Exception {
        SyncClient client = target.syncClient();
        List<Replication> replications = new ArrayList<>();
        Optional<ResourceWatch> watch = Optional.empty();
        try {
            List<Workload> workloads = prepare(client, target, replications);
            watch = settings.watchEvery().map(every -> watch(client, every));
            Run run = new Run(settings, console, client, workloads, new Resharding(partitions));
            run.writeChanges();
            List<Outcome> outcomes = run.awaitReplicas(replications);
            for (Replication r : replications) {
                for (String table : settings.sourceTables()) {
                    describeOnceCaughtUp(target, table, r.engine());
                }
            }
            replications.forEach(Replication::close);
            replications.clear();
            watch.ifPresent(ResourceWatch::close);
            watched = watch.map(ResourceWatch::samples).orElse(List.of());
            return run.summarize(outcomes, watched);
        } finally {
            watch.ifPresent(ResourceWatch::close);
            replications.forEach(Replication::close);
            client.shutdown();
        }
    }

    /**
     * Prints what {@code bin/tablestore-cdc describe} shows for the engine's tunnel, once it shows
     * no lag (up to {@link #LAG_REPORT_TIMEOUT}): the consumer writes its catch-up report about a
     * second after its reads find the channels drained, and a record the tunnel delivers late (a
     * merged channel's first ones) moves a committed position past that report until the next one.
     * The lag waited for and the lines printed come from one reading of the tunnel and the meta
     * table, so the printed report is the one that showed no lag.
     */
    private void describeOnceCaughtUp(DemoTarget target, String table, String engine) {
        long deadline = System.nanoTime() + LAG_REPORT_TIMEOUT.toNanos();
        while (true) {
            StringWriter text = new StringWriter();
            Optional<Duration> lag;
            try {
                lag =
                        TablestoreCdcCli.describe(
                                endpoint(target),
                                META_TABLE,
                                table,
                                tunnelName(engine),
                                new PrintWriter(text, true));
            } catch (RuntimeException e) {
                console.say("cli", "describe " + tunnelName(engine) + " failed: " + e.getMessage());
                return;
            }
            boolean caughtUp = lag.filter(Duration.ZERO::equals).isPresent();
            if (caughtUp || System.nanoTime() > deadline) {
                if (!caughtUp) {
                    console.say(
                            engine,
                            "not reported caught up within "
                                    + LAG_REPORT_TIMEOUT.toSeconds()
                                    + " s (max lag "
                                    + lag.map(Duration::toString).orElse("unknown")
                                    + ")");
                }
                print(table, engine, text.toString());
                return;
            }
            if (!pause(Duration.ofMillis(250))) {
                return;
            }
        }
    }

    private static boolean pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static TablestoreEndpoint endpoint(DemoTarget target) {
        return target.tablestoreEndpoint();
    }

    private void print(String table, String engine, String describeText) {
        console.say("", "");
        console.say(
                "cli",
                "bin/tablestore-cdc describe --table " + table + " --tunnel " + tunnelName(engine));
        describeText.lines().forEach(line -> console.say("cli", line));
    }

    private ResourceWatch watch(SyncClient client, Duration every) {
        console.say(
                "watch",
                "sampling heap after GC and the rows of " + META_TABLE + " every " + every);
        return ResourceWatch.start(client, META_TABLE, console, every);
    }

    /** The samples of {@code --watch-every}, once the demo has run (empty without the flag). */
    List<ResourceWatch.Sample> watched() {
        return watched;
    }

    /**
     * Creates the source tables, writes the base data, creates one tunnel per engine on each and
     * starts the engines; returns each table's workload.
     */
    private List<Workload> prepare(SyncClient client, DemoTarget target, List<Replication> out)
            throws Exception {
        List<Workload> workloads = new ArrayList<>();
        for (String table : settings.sourceTables()) {
            OrdersTable.create(client, table);
            Workload workload = new Workload(client, table, settings.seed() + workloads.size());
            workload.writeBaseData(settings.rows());
            workloads.add(workload);
            console.say(
                    "demo",
                    "table " + table + ": wrote " + settings.rows() + " orders (base data)");
        }
        TunnelClient tunnels = target.tunnelClient();
        try {
            for (Engine engine : List.of(Engine.SPARK, Engine.FLINK)) {
                if (settings.engines().contains(engine)) {
                    out.add(replication(engine, client, tunnels, target));
                }
            }
        } finally {
            tunnels.shutdown();
        }
        for (Replication replication : out) {
            replication.start();
            List<String> replicas =
                    settings.sourceTables().stream().map(replication::replicaOf).toList();
            console.say(
                    replication.engine(),
                    "started: tunnel "
                            + tunnelName(replication.engine())
                            + (settings.tables() == 1
                                    ? ""
                                    : " on " + settings.tables() + " tables (" + selection() + ")")
                            + " -> replica table"
                            + (replicas.size() == 1 ? " " : "s ")
                            + String.join(", ", replicas));
        }
        return workloads;
    }

    private String selection() {
        return settings.tableSelection().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .findFirst()
                .orElseThrow();
    }

    private Replication replication(
            Engine engine, SyncClient client, TunnelClient tunnels, DemoTarget target) {
        String name = engine.name().toLowerCase(java.util.Locale.ROOT);
        Map<String, String> replicas = new LinkedHashMap<>();
        for (String table : settings.sourceTables()) {
            String replica = table + "_" + name + "_replica";
            OrdersTable.create(client, replica);
            replicas.put(table, replica);
            // One tunnel per engine, so each consumes the whole change stream on its own.
            tunnels.createTunnel(
                    new CreateTunnelRequest(table, tunnelName(name), TunnelType.BaseAndStream));
        }
        long baseTotal = (long) settings.rows() * settings.tables();
        return engine == Engine.SPARK
                ? new SparkReplication(
                        target,
                        settings.tableSelection(),
                        tunnelName(name),
                        replicas,
                        baseTotal,
                        console)
                : new FlinkReplication(
                        target,
                        settings.tableSelection(),
                        tunnelName(name),
                        replicas,
                        baseTotal,
                        console);
    }

    private String tunnelName(String engine) {
        return settings.table() + "_to_" + engine;
    }

    /**
     * How one replica ended.
     *
     * @param replication the engine
     * @param table the source table
     * @param diff the differences of its replica from the source table
     * @param caughtUpMillis how long after the writes stopped it matched (when it did)
     * @param failure why the engine stopped, if it failed
     */
    record Outcome(
            Replication replication,
            String table,
            TableDiff diff,
            Optional<Long> caughtUpMillis,
            Optional<Throwable> failure) {}

    private static String timings(EngineStats stats, Optional<Long> caughtUpMillis) {
        return String.join(
                "; ",
                stats.baseCatchUpSeconds()
                        .map(
                                sec ->
                                        String.format(
                                                "base data (%d rows) applied %.1f s after the engine was started",
                                                stats.baseTotal(), sec))
                        .orElse("base data not caught up"),
                stats.maxLagMillis()
                        .map(ms -> String.format("max lag %.1f s", ms / 1000.0))
                        .orElse("no lag reported"),
                caughtUpMillis
                        .map(
                                ms ->
                                        String.format(
                                                "caught up %.1f s after the writes stopped",
                                                ms / 1000.0))
                        .orElse("did not catch up"));
    }

    /** Splits and merges of the source table during the change phase, counted. */
    private static final class Resharding {
        final Optional<PartitionControl> control;
        int splits;
        int merges;

        Resharding(Optional<PartitionControl> control) {
            this.control = control;
        }

        String describe() {
            return control.isEmpty()
                    ? "no splits or merges"
                    : plural(splits, "split") + ", " + plural(merges, "merge");
        }

        private static String plural(int n, String what) {
            return n + " " + what + (n == 1 ? "" : "s");
        }
    }

    /** The change phase and the checks, on the source tables (splits and merges on the first). */
    private record Run(
            DemoSettings settings,
            Console console,
            SyncClient client,
            List<Workload> workloads,
            Resharding partitions) {

        private long total(java.util.function.ToLongFunction<Workload> count) {
            return workloads.stream().mapToLong(count).sum();
        }

        void writeChanges() {
            console.say(
                    "demo",
                    String.format(
                            "writing about %d changes/s for %d s (inserts, partial updates,"
                                    + " deletes)",
                            settings.rate(), settings.duration().toSeconds()));
            if (partitions.control.isEmpty()) {
                console.say(
                        "demo",
                        "no splits or merges: an external instance splits partitions on its own");
            }
            writeAll();
            console.say(
                    "demo",
                    String.format(
                            "writes stopped: %d changes (%d inserts, %d partial updates, %d"
                                    + " deletes); waiting for the replicas to catch up",
                            total(Workload::changes),
                            total(w -> w.inserts.get()),
                            total(w -> w.updates.get()),
                            total(w -> w.deletes.get())));
        }

        /** Each table's changes at its share of the rate, side by side; the first reshards. */
        private void writeAll() {
            if (workloads.size() == 1) {
                workloads.get(0).runChanges(settings.rate(), settings.duration(), milestones());
                return;
            }
            double rate = Math.max(1.0, (double) settings.rate() / workloads.size());
            List<java.util.concurrent.CompletableFuture<Void>> writers = new ArrayList<>();
            for (int i = 0; i < workloads.size(); i++) {
                Workload workload = workloads.get(i);
                List<Workload.Milestone> steps = i == 0 ? milestones() : List.of();
                writers.add(
                        java.util.concurrent.CompletableFuture.runAsync(
                                () -> workload.runChanges(rate, settings.duration(), steps)));
            }
            writers.forEach(java.util.concurrent.CompletableFuture::join);
        }

        private String firstTable() {
            return settings.sourceTables().get(0);
        }

        /** One split and one merge, or a split then a merge every {@code --reshard-every}. */
        private List<Workload.Milestone> milestones() {
            List<Workload.Milestone> milestones = new ArrayList<>();
            if (partitions.control.isEmpty()) {
                return milestones;
            }
            if (settings.reshardEvery().isEmpty()) {
                milestones.add(new Workload.Milestone(0.3, this::split));
                milestones.add(new Workload.Milestone(0.65, this::merge));
                return milestones;
            }
            double step =
                    (double) settings.reshardEvery().get().toMillis()
                            / settings.duration().toMillis();
            for (int i = 1; i * step < 0.95; i++) {
                milestones.add(
                        new Workload.Milestone(i * step, i % 2 == 1 ? this::split : this::merge));
            }
            return milestones;
        }

        private String splitKey() {
            return OrdersTable.orderId(settings.rows() / 2);
        }

        private void split() {
            List<String> children = partitions.control.get().split(firstTable(), splitKey());
            partitions.splits++;
            console.say(
                    "demo",
                    "split the partition holding "
                            + splitKey()
                            + (workloads.size() == 1 ? "" : " of " + firstTable())
                            + " into "
                            + children);
        }

        private void merge() {
            String merged = partitions.control.get().merge(firstTable(), splitKey());
            partitions.merges++;
            console.say(
                    "demo", "merged the two partitions around " + splitKey() + " into " + merged);
        }

        List<Outcome> awaitReplicas(List<Replication> replications) throws InterruptedException {
            long stoppedAt = System.nanoTime();
            long deadline = stoppedAt + settings.catchUpTimeout().toNanos();
            Map<String, SortedMap<String, Map<String, Object>>> sources = new LinkedHashMap<>();
            for (String table : settings.sourceTables()) {
                sources.put(table, OrdersTable.scan(client, table));
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Replication replication : replications) {
                for (Map.Entry<String, SortedMap<String, Map<String, Object>>> source :
                        sources.entrySet()) {
                    outcomes.add(
                            awaitOne(
                                    replication,
                                    source.getKey(),
                                    source.getValue(),
                                    stoppedAt,
                                    deadline));
                }
            }
            return outcomes;
        }

        private Outcome awaitOne(
                Replication replication,
                String table,
                SortedMap<String, Map<String, Object>> source,
                long stoppedAt,
                long deadline)
                throws InterruptedException {
            String replica = replication.replicaOf(table);
            while (true) {
                TableDiff diff = TableDiff.between(source, OrdersTable.scan(client, replica), 5);
                if (diff.matches()) {
                    long millis = (System.nanoTime() - stoppedAt) / 1_000_000;
                    console.say(
                            replication.engine(),
                            String.format(
                                    "%scaught up %.1f s after the writes stopped",
                                    workloads.size() == 1 ? "" : replica + " ", millis / 1000.0));
                    return new Outcome(
                            replication, table, diff, Optional.of(millis), Optional.empty());
                }
                Optional<Throwable> failure = replication.failure();
                if (failure.isPresent() || System.nanoTime() > deadline) {
                    return new Outcome(replication, table, diff, Optional.empty(), failure);
                }
                Thread.sleep(500);
            }
        }

        boolean summarize(List<Outcome> outcomes, List<ResourceWatch.Sample> watched) {
            console.say("", "");
            console.say("summary", "");
            for (int i = 0; i < workloads.size(); i++) {
                Workload workload = workloads.get(i);
                String table = settings.sourceTables().get(i);
                SortedMap<String, Map<String, Object>> source = OrdersTable.scan(client, table);
                console.say(
                        "source",
                        String.format(
                                "%s: %d rows now; %d base rows + %d changes written (%d inserts, %d"
                                        + " partial updates, %d deletes)%s",
                                table,
                                source.size(),
                                settings.rows(),
                                workload.changes(),
                                workload.inserts.get(),
                                workload.updates.get(),
                                workload.deletes.get(),
                                i == 0 ? "; " + partitions.describe() : ""));
            }
            if (!watched.isEmpty()) {
                console.say("watch", ResourceWatch.summary(watched));
            }
            boolean allMatch = true;
            for (Outcome outcome : outcomes) {
                allMatch &= report(outcome, outcomes);
            }
            console.say("result", allMatch ? "MATCH" : "MISMATCH");
            return allMatch;
        }

        private boolean report(Outcome outcome, List<Outcome> outcomes) {
            Replication r = outcome.replication();
            EngineStats stats = r.stats();
            String verdict =
                    outcome.diff().matches()
                            ? "MATCH"
                            : "MISMATCH (" + outcome.diff().total() + " rows differ)";
            String replica = r.replicaOf(outcome.table());
            boolean firstOfEngine =
                    outcomes.stream().filter(o -> o.replication() == r).findFirst().orElseThrow()
                            == outcome;
            if (!firstOfEngine) {
                console.say(r.engine(), String.format("%s: %s", replica, verdict));
                outcome.diff().differences().forEach(line -> console.say(r.engine(), "  " + line));
                return outcome.diff().matches();
            }
            console.say(
                    r.engine(),
                    String.format(
                            "%s: %s; %d changes applied in %d %s (%.0f changes/s)",
                            replica,
                            verdict,
                            stats.changes(),
                            stats.units(),
                            r.engine().equals("spark") ? "batches" : "checkpoints",
                            stats.throughput()));
            console.say(r.engine(), "       " + timings(stats, outcome.caughtUpMillis()));
            outcome.failure().ifPresent(e -> console.say(r.engine(), "failed: " + e));
            outcome.diff().differences().forEach(line -> console.say(r.engine(), "  " + line));
            return outcome.diff().matches();
        }
    }
}

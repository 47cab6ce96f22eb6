package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
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
            Workload workload = prepare(client, target, replications);
            watch = settings.watchEvery().map(every -> watch(client, every));
            Run run = new Run(settings, console, client, workload, new Resharding(partitions));
            run.writeChanges();
            List<Outcome> outcomes = run.awaitReplicas(replications);
            for (Replication r : replications) {
                describeOnceCaughtUp(target, r.engine());
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
    private void describeOnceCaughtUp(DemoTarget target, String engine) {
        long deadline = System.nanoTime() + LAG_REPORT_TIMEOUT.toNanos();
        while (true) {
            StringWriter text = new StringWriter();
            Optional<Duration> lag;
            try {
                lag =
                        TablestoreCdcCli.describe(
                                endpoint(target),
                                META_TABLE,
                                settings.table(),
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
                print(engine, text.toString());
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
        return new TablestoreEndpoint(
                target.endpoint(),
                target.instanceName(),
                TablestoreCredentials.of(target.accessKeyId(), target.accessKeySecret()));
    }

    private void print(String engine, String describeText) {
        console.say("", "");
        console.say(
                "cli",
                "bin/tablestore-cdc describe --table "
                        + settings.table()
                        + " --tunnel "
                        + tunnelName(engine));
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

    /** Creates the tables, writes the base data, creates one tunnel per engine and starts them. */
    private Workload prepare(SyncClient client, DemoTarget target, List<Replication> out)
            throws Exception {
        String table = settings.table();
        OrdersTable.create(client, table);
        Workload workload = new Workload(client, table, settings.seed());
        workload.writeBaseData(settings.rows());
        console.say(
                "demo", "table " + table + ": wrote " + settings.rows() + " orders (base data)");
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
            console.say(
                    replication.engine(),
                    "started: tunnel "
                            + tunnelName(replication.engine())
                            + " -> replica table "
                            + replication.replicaTable());
        }
        return workload;
    }

    private Replication replication(
            Engine engine, SyncClient client, TunnelClient tunnels, DemoTarget target) {
        String name = engine.name().toLowerCase(java.util.Locale.ROOT);
        String replica = settings.table() + "_" + name + "_replica";
        OrdersTable.create(client, replica);
        // One tunnel per engine, so each consumes the whole change stream on its own.
        tunnels.createTunnel(
                new CreateTunnelRequest(
                        settings.table(), tunnelName(name), TunnelType.BaseAndStream));
        return engine == Engine.SPARK
                ? new SparkReplication(
                        target,
                        settings.table(),
                        tunnelName(name),
                        replica,
                        settings.rows(),
                        console)
                : new FlinkReplication(
                        target,
                        settings.table(),
                        tunnelName(name),
                        replica,
                        settings.rows(),
                        console);
    }

    private String tunnelName(String engine) {
        return settings.table() + "_to_" + engine;
    }

    /**
     * How one replica ended.
     *
     * @param replication the engine
     * @param diff its differences from the source table
     * @param caughtUpMillis how long after the writes stopped it matched (when it did)
     * @param failure why the engine stopped, if it failed
     */
    record Outcome(
            Replication replication,
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

    /** The change phase and the checks, on one source table. */
    private record Run(
            DemoSettings settings,
            Console console,
            SyncClient client,
            Workload workload,
            Resharding partitions) {

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
            workload.runChanges(settings.rate(), settings.duration(), milestones());
            console.say(
                    "demo",
                    String.format(
                            "writes stopped: %d changes (%d inserts, %d partial updates, %d"
                                    + " deletes); waiting for the replicas to catch up",
                            workload.changes(),
                            workload.inserts.get(),
                            workload.updates.get(),
                            workload.deletes.get()));
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
            List<String> children = partitions.control.get().split(settings.table(), splitKey());
            partitions.splits++;
            console.say("demo", "split the partition holding " + splitKey() + " into " + children);
        }

        private void merge() {
            String merged = partitions.control.get().merge(settings.table(), splitKey());
            partitions.merges++;
            console.say(
                    "demo", "merged the two partitions around " + splitKey() + " into " + merged);
        }

        List<Outcome> awaitReplicas(List<Replication> replications) throws InterruptedException {
            long stoppedAt = System.nanoTime();
            long deadline = stoppedAt + settings.catchUpTimeout().toNanos();
            SortedMap<String, Map<String, Object>> source =
                    OrdersTable.scan(client, settings.table());
            List<Outcome> outcomes = new ArrayList<>();
            for (Replication replication : replications) {
                outcomes.add(awaitOne(replication, source, stoppedAt, deadline));
            }
            return outcomes;
        }

        private Outcome awaitOne(
                Replication replication,
                SortedMap<String, Map<String, Object>> source,
                long stoppedAt,
                long deadline)
                throws InterruptedException {
            while (true) {
                TableDiff diff =
                        TableDiff.between(
                                source, OrdersTable.scan(client, replication.replicaTable()), 5);
                if (diff.matches()) {
                    long millis = (System.nanoTime() - stoppedAt) / 1_000_000;
                    console.say(
                            replication.engine(),
                            String.format(
                                    "caught up %.1f s after the writes stopped", millis / 1000.0));
                    return new Outcome(replication, diff, Optional.of(millis), Optional.empty());
                }
                Optional<Throwable> failure = replication.failure();
                if (failure.isPresent() || System.nanoTime() > deadline) {
                    return new Outcome(replication, diff, Optional.empty(), failure);
                }
                Thread.sleep(500);
            }
        }

        boolean summarize(List<Outcome> outcomes, List<ResourceWatch.Sample> watched) {
            SortedMap<String, Map<String, Object>> source =
                    OrdersTable.scan(client, settings.table());
            console.say("", "");
            console.say("summary", "");
            console.say(
                    "source",
                    String.format(
                            "%s: %d rows now; %d base rows + %d changes written (%d inserts, %d"
                                    + " partial updates, %d deletes); %s",
                            settings.table(),
                            source.size(),
                            settings.rows(),
                            workload.changes(),
                            workload.inserts.get(),
                            workload.updates.get(),
                            workload.deletes.get(),
                            partitions.describe()));
            if (!watched.isEmpty()) {
                console.say("watch", ResourceWatch.summary(watched));
            }
            boolean allMatch = true;
            for (Outcome outcome : outcomes) {
                allMatch &= report(outcome);
            }
            console.say("result", allMatch ? "MATCH" : "MISMATCH");
            return allMatch;
        }

        private boolean report(Outcome outcome) {
            Replication r = outcome.replication();
            EngineStats stats = r.stats();
            String verdict =
                    outcome.diff().matches()
                            ? "MATCH"
                            : "MISMATCH (" + outcome.diff().total() + " rows differ)";
            console.say(
                    r.engine(),
                    String.format(
                            "%s: %s; %d changes applied in %d %s (%.0f changes/s)",
                            r.replicaTable(),
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

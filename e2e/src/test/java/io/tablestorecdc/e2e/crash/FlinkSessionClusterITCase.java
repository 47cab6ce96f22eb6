package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.cluster.FlinkSessionCluster;
import io.tablestorecdc.e2e.cluster.JobJar;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Flink connector on a standalone session cluster (a JobManager and a TaskManager in JVMs of
 * their own, the connector only in the job's jar, credentials only in the cluster's environment): a
 * cancelled job releases the tunnel's lease at once and leaves no thread behind; a killed
 * TaskManager and a savepoint restore lose and duplicate nothing.
 */
class FlinkSessionClusterITCase {

    private static final int PARALLELISM = 2;

    /** The cluster's restart strategy allows this many attempts of a job. */
    private static final int MAX_ATTEMPTS = 20;

    private static final Duration RUNNING_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(120);

    /** Threads the connector or the Tablestore SDK start, by name. */
    private static final Pattern CONNECTOR_THREAD =
            Pattern.compile(
                    "I/O dispatcher.*|tunnel-heartbeat-.*|tablestore-cdc-.*|tablestore-callback-.*"
                            + "|tablestore-retry-.*");

    /** Unnamed threads (the SDK's idle-connection evictor and I/O reactor are such). */
    private static final Pattern UNNAMED_THREAD =
            Pattern.compile("Thread-\\d+|pool-\\d+-thread-\\d+");

    private static CrashBed credentialsBed;
    private static FlinkSessionCluster cluster;
    private static String jarId;

    @BeforeAll
    static void startCluster() throws Exception {
        // The emulator's default key, which every bed below serves, is the cluster's only secret.
        credentialsBed = new CrashBed("flink-cluster", 1, 1L);
        DemoTarget target = credentialsBed.target();
        cluster =
                FlinkSessionCluster.start(
                        credentialsBed.dir.resolve("cluster"),
                        Map.of(
                                SdkCredentials.ENV_ACCESS_KEY_ID, target.accessKeyId(),
                                SdkCredentials.ENV_ACCESS_KEY_SECRET, target.accessKeySecret()),
                        1);
        Path jar =
                JobJar.build(
                        credentialsBed.dir.resolve("tablestore-cdc-job.jar"),
                        FlinkSessionCluster.connectorJar(),
                        List.of(FlinkClusterJob.class, OrderChange.class),
                        List.of(AppliedOnceWrites.class));
        jarId = cluster.uploadJar(jar);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try {
            if (cluster != null) {
                String secret = credentialsBed.target().accessKeySecret();
                assertThat(cluster.allLogs()).as("the cluster's logs").doesNotContain(secret);
                cluster.close();
            }
        } finally {
            credentialsBed.close();
        }
    }

    @Test
    void aCancelledJobReleasesTheLeaseAtOnceAndLeavesNoThreadBehind() throws Exception {
        try (CrashBed bed = new CrashBed("flink-cluster-cancel", 100, 3L)) {
            TunnelOwner owner = new TunnelOwner(bed);
            int unnamedBefore = unnamedThreads();
            for (int cycle = 0; cycle < 10; cycle++) {
                String job = submit(bed, "cancel-" + cycle, Optional.empty());
                Await.until(
                        "job " + cycle + " running and owning the tunnel",
                        RUNNING_TIMEOUT,
                        () -> cluster.allTasksRunning(job) && owner.isOwned());
                assertThat(cluster.restarts(job))
                        .as("job %s took the tunnel over without a failover", cycle)
                        .isZero();

                cluster.cancel(job);

                awaitReleased(owner, "the lease of cancelled job " + cycle + " released");
            }
            for (FlinkSessionCluster.FlinkProcess jvm : jvms()) {
                Await.until(
                        "no connector thread left in " + jvm.name(),
                        Duration.ofSeconds(10),
                        () -> connectorThreads(jvm).isEmpty());
            }
            assertThat(unnamedThreads() - unnamedBefore)
                    .as("unnamed threads after ten jobs (one per job would be a leak)")
                    .isLessThan(5);
            assertThat(cluster.allLogs())
                    .as("the cluster's logs")
                    .doesNotContain("Trying to access closed classloader");
        }
    }

    @Test
    void aKilledTaskManagerAndASavepointRestoreLoseAndDuplicateNothing() throws Exception {
        try (CrashBed bed = new CrashBed("flink-cluster-recover", 500, 5L)) {
            bed.startWriting(150);
            String first = submit(bed, "recover-0", Optional.empty());
            Await.until(
                    "the first job running", RUNNING_TIMEOUT, () -> cluster.allTasksRunning(first));
            System.out.println(bed.split().description());
            Await.until(
                    "the first job's deliveries",
                    RUNNING_TIMEOUT,
                    () -> delivered(bed, "recover-0", 0));

            cluster.taskManagers().get(0).kill();
            cluster.startTaskManager();
            Await.until(
                    "the job restored on the new TaskManager",
                    RUNNING_TIMEOUT,
                    () -> cluster.restarts(first) > 0 && cluster.allTasksRunning(first));
            long restored = cluster.restoredCheckpoint(first).orElseThrow();
            Await.until(
                    "deliveries of the restored job",
                    RUNNING_TIMEOUT,
                    () ->
                            delivered(bed, "recover-0", attempts(bed, "recover-0") - 1)
                                    && attempts(bed, "recover-0") > 1);

            String savepointPath = cluster.stopWithSavepoint(first, bed.dir.resolve("savepoints"));
            String second = submit(bed, "recover-1", Optional.of(savepointPath));
            Await.until(
                    "the job restored from the savepoint",
                    RUNNING_TIMEOUT,
                    () -> cluster.allTasksRunning(second));
            long savepoint = cluster.restoredCheckpoint(second).orElseThrow();
            bed.stopWriting();

            Map<String, String> expected = bed.truth.expected();
            Await.until(
                    "every change delivered and both replicas equal to the source table",
                    CONVERGE_TIMEOUT,
                    () ->
                            audit(bed, restored, savepoint, expected).missingFrom(expected) == 0
                                    && bed.diff().matches()
                                    && bed.sinkDiff().matches());
            DeliveryAudit.Report report = audit(bed, restored, savepoint, expected);
            assertThat(report.violations()).as("change log audit in " + bed.dir).isEmpty();
            assertThat(report.committed()).hasSize(expected.size());
            assertThat(cluster.restarts(second)).as("the restored job's failovers").isZero();
            cluster.cancel(second);
        }
    }

    @Test
    void aSqlClientJobWithCredentialsFromTheEnvironmentKeepsAReplica() throws Exception {
        try (CrashBed bed = new CrashBed("flink-cluster-sql", 300, 9L)) {
            TunnelOwner owner = new TunnelOwner(bed);
            bed.startWriting(100);
            String output =
                    cluster.runSqlClient(FlinkSessionCluster.connectorJar(), "replica", sql(bed));
            List<String> running = cluster.jobs("RUNNING");
            assertThat(running).as("jobs running after the SQL Client ended").hasSize(1);
            String job = running.get(0);
            System.out.println(bed.split().description());
            Await.until("the SQL job owning the tunnel", RUNNING_TIMEOUT, owner::isOwned);
            bed.stopWriting();

            Await.until(
                    "the replica equal to the source table",
                    CONVERGE_TIMEOUT,
                    () -> bed.sinkDiff().matches());
            assertThat(cluster.restarts(job)).as("the SQL job's failovers").isZero();
            cluster.cancel(job);
            awaitReleased(owner, "the lease of the cancelled SQL job released");
            assertThat(output)
                    .as("the SQL Client's output and log")
                    .contains("Job ID")
                    .doesNotContain(bed.target().accessKeySecret());
        }
    }

    /** The SQL a user runs: the orders table's changes into a replica, credentials not in it. */
    private static String sql(CrashBed bed) {
        DemoTarget target = bed.target();
        String columns =
                "order_id STRING, customer STRING, qty BIGINT, amount DOUBLE, status STRING,"
                        + " note STRING, PRIMARY KEY (order_id) NOT ENFORCED";
        String connection =
                "'endpoint' = '"
                        + target.endpoint()
                        + "', 'instance.name' = '"
                        + target.instanceName()
                        + "', 'credentials.provider' = 'env'";
        return String.join(
                "\n",
                "SET 'execution.checkpointing.interval' = '500ms';",
                "SET 'parallelism.default' = '2';",
                "CREATE TABLE orders ("
                        + columns
                        + ") WITH ('connector' = 'tablestore-cdc', "
                        + connection
                        + ", 'table.name' = '"
                        + CrashBed.TABLE
                        + "', 'tunnel.name' = '"
                        + CrashBed.TUNNEL
                        + "');",
                "CREATE TABLE orders_replica ("
                        + columns
                        + ") WITH ('connector' = 'tablestore', "
                        + connection
                        + ", 'table.name' = '"
                        + CrashBed.SINK_REPLICA
                        + "');",
                "INSERT INTO orders_replica SELECT * FROM orders;",
                "");
    }

    /**
     * The change logs of both jobs, the first job's per attempt: each attempt up to the checkpoint
     * the next one restored ({@code restored} after the TaskManager was lost, {@code savepoint} for
     * the second job), the second job whole.
     */
    private static DeliveryAudit.Report audit(
            CrashBed bed, long restored, long savepoint, Map<String, String> expected) {
        List<Delivery> deliveries = new ArrayList<>();
        Map<Integer, OptionalLong> committed = new HashMap<>();
        int run = 0;
        for (String job : List.of("recover-0", "recover-1")) {
            int attempts = attempts(bed, job);
            for (int attempt = 0; attempt < attempts; attempt++, run++) {
                for (int subtask = 0; subtask < PARALLELISM; subtask++) {
                    Path log =
                            LoggingReplicaSink.changeLog(
                                    bed.dir.resolve(job).toString(), attempt, subtask);
                    deliveries.addAll(ChangeLog.read(log, run, subtask));
                }
                boolean last = attempt == attempts - 1;
                long through =
                        job.equals("recover-1") ? Long.MAX_VALUE : last ? savepoint : restored;
                committed.put(run, OptionalLong.of(through));
            }
        }
        return DeliveryAudit.flink(deliveries, committed, expected);
    }

    /** Whether the attempt of the job logged a delivery (either sink subtask). */
    private static boolean delivered(CrashBed bed, String job, int attempt) {
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            Path log =
                    LoggingReplicaSink.changeLog(bed.dir.resolve(job).toString(), attempt, subtask);
            if (!ChangeLog.read(log, 0, subtask).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** One more than the last attempt of the job that wrote a change log (some write none). */
    private static int attempts(CrashBed bed, String job) {
        int attempts = 1;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            if (delivered(bed, job, attempt)) {
                attempts = attempt + 1;
            }
        }
        return attempts;
    }

    private static void awaitReleased(TunnelOwner owner, String what) {
        try {
            Await.until(what, Duration.ofSeconds(5), () -> !owner.isOwned());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the tunnel: " + owner.describe(), e);
        }
    }

    private static String submit(CrashBed bed, String name, Optional<String> savepoint)
            throws Exception {
        DemoTarget target = bed.target();
        List<String> args =
                List.of(
                        "endpoint=" + target.endpoint(),
                        "instance=" + target.instanceName(),
                        "table=" + CrashBed.TABLE,
                        "tunnel=" + CrashBed.TUNNEL,
                        "replica=" + CrashBed.REPLICA,
                        "sinkReplica=" + CrashBed.SINK_REPLICA,
                        "changeLog=" + bed.dir.resolve(name),
                        "checkpoints=" + bed.dir.resolve("checkpoints").resolve(name).toUri());
        return cluster.runJar(jarId, FlinkClusterJob.class.getName(), args, savepoint);
    }

    private static List<FlinkSessionCluster.FlinkProcess> jvms() {
        List<FlinkSessionCluster.FlinkProcess> all =
                new java.util.ArrayList<>(cluster.taskManagers());
        all.add(cluster.jobManager());
        return all;
    }

    private static List<String> connectorThreads(FlinkSessionCluster.FlinkProcess jvm) {
        return jvm.threadNames().stream()
                .filter(n -> CONNECTOR_THREAD.matcher(n).matches())
                .collect(Collectors.toList());
    }

    private static int unnamedThreads() {
        int count = 0;
        for (FlinkSessionCluster.FlinkProcess jvm : jvms()) {
            count +=
                    (int)
                            jvm.threadNames().stream()
                                    .filter(n -> UNNAMED_THREAD.matcher(n).matches())
                                    .count();
        }
        return count;
    }
}

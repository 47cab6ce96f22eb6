package io.tablestorecdc.e2e.cluster;

import static io.tablestorecdc.e2e.handover.OrdersStream.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.handover.DeliveryLog;
import io.tablestorecdc.e2e.handover.OrdersStream;
import io.tablestorecdc.e2e.handover.Phases;
import io.tablestorecdc.e2e.handover.SparkCapture;
import io.tablestorecdc.e2e.orders.TableDiff;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executors in separate JVMs: a standalone Spark cluster whose worker runs two executor JVMs reads
 * a tunnel across a partition split. Readers build their own clients in the executors and share
 * nothing with the driver but what the input partitions carry, so the sink must receive exactly the
 * changes: none lost, none twice, the replica equal to the source table.
 */
class SparkExecutorJvmsITCase {

    private static final int BASE_ROWS = 300;

    @TempDir Path dir;

    @Test
    void executorsInTheirOwnJvmsDeliverExactlyTheChangesAcrossASplit() throws Exception {
        Phases phases = new Phases("executors");
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start();
                StandaloneSparkCluster cluster =
                        StandaloneSparkCluster.start(2, 2048, dir.resolve("worker"));
                OrdersStream stream = OrdersStream.create(emulator, "executors", BASE_ROWS)) {
            SparkSession spark = session(cluster);
            phases.reached("cluster and session started");
            try {
                assertThat(executorPids(spark))
                        .as("process ids of the JVMs that ran tasks")
                        .isNotEmpty()
                        .doesNotContain(ProcessHandle.current().pid());

                phases.reached("executors registered");
                SparkCapture query = SparkCapture.start(spark, stream, dir.resolve("checkpoint"));
                stream.startChanges(150, Duration.ofSeconds(6), List.of(stream.splitAt(0.3)));
                stream.awaitChangesWritten();
                phases.reached("changes written");
                await(
                        () -> {
                            query.requireHealthy();
                            return query.log().size() >= stream.expectedChanges();
                        },
                        Duration.ofSeconds(120),
                        "all " + stream.expectedChanges() + " changes in the sink");
                phases.reached("all changes in the sink");
                query.stop();

                DeliveryLog log = query.log();
                assertThat(log.repeated()).as("changes delivered twice").isEmpty();
                assertThat(log.size()).isEqualTo(stream.expectedChanges());
                assertThat(log.byChannel().keySet())
                        .as("channels read: the parent and both children of the split")
                        .hasSize(3);
                TableDiff diff = stream.replicate("executors_replica", log.all());
                assertThat(diff.differences()).as("replica vs source").isEmpty();
            } finally {
                spark.stop();
                SparkSession.clearActiveSession();
                SparkSession.clearDefaultSession();
            }
        }
    }

    private static SparkSession session(StandaloneSparkCluster cluster) {
        SparkConf conf =
                StandaloneSparkCluster.executorSettings(new SparkConf())
                        .setMaster(cluster.masterUrl())
                        .setAppName("tablestore-cdc executors in separate JVMs")
                        .set("spark.executor.cores", "1")
                        .set("spark.executor.memory", "512m")
                        .set("spark.cores.max", "2")
                        .set("spark.ui.enabled", "false")
                        .set("spark.sql.shuffle.partitions", "1");
        return SparkSession.builder().config(conf).getOrCreate();
    }

    /** The process ids of the JVMs that run tasks, once both executors have registered. */
    private static Set<Long> executorPids(SparkSession spark) {
        JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
        await(
                () -> context.sc().getExecutorMemoryStatus().size() >= 3, // the driver too
                Duration.ofSeconds(90),
                "two executors to register");
        List<Long> pids =
                context.parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8), 8)
                        .map(i -> ProcessHandle.current().pid())
                        .collect();
        return new TreeSet<>(pids);
    }
}

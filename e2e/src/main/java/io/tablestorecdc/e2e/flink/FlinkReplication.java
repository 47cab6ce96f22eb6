package io.tablestorecdc.e2e.flink;

import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.DescribeTunnelRequest;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.e2e.Console;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.e2e.EngineStats;
import io.tablestorecdc.e2e.Replication;
import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.flink.sink.TablestoreSink;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink DataStream job (parallelism 2, a checkpoint every 2 s) that reads the tunnel with {@link
 * TablestoreCdcSource}, keys the changes by order id and writes its own replica table with {@link
 * TablestoreSink}.
 */
public final class FlinkReplication implements Replication {

    private static final int PARALLELISM = 2;

    private static final String META_TABLE = SdkMetaTableClient.DEFAULT_TABLE_NAME;

    private final DemoTarget target;
    private final Map<String, String> selection;
    private final String tunnel;
    private final Map<String, String> replicas;
    private final long baseTotal;
    private final Console console;
    private final EngineStats stats;
    private final String runId = UUID.randomUUID().toString();
    private JobClient job;

    /**
     * @param selection the source's {@code table.name} or {@code table.pattern} option
     * @param replicas each source table's replica
     */
    public FlinkReplication(
            DemoTarget target,
            Map<String, String> selection,
            String tunnel,
            Map<String, String> replicas,
            long baseTotal,
            Console console) {
        this.target = target;
        this.selection = Map.copyOf(selection);
        this.tunnel = tunnel;
        this.replicas = new LinkedHashMap<>(replicas);
        this.baseTotal = baseTotal;
        this.console = console;
        this.stats = new EngineStats(baseTotal);
    }

    @Override
    public String engine() {
        return "flink";
    }

    @Override
    public String replicaTable() {
        return replicas.values().iterator().next();
    }

    @Override
    public String replicaOf(String table) {
        return replicas.get(table);
    }

    @Override
    public EngineStats stats() {
        return stats;
    }

    @Override
    public void start() throws Exception {
        stats.recordStart();
        FlinkRun.register(runId, stats, console, baseTotal);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, configuration());
        DataStream<OrderChange> applied =
                env.fromSource(source(), WatermarkStrategy.noWatermarks(), "orders changes")
                        .uid("tablestore-cdc-source")
                        .keyBy(new ByOrderId())
                        .map(new AppliedChanges(runId))
                        .uid("orders-applied")
                        .name("count changes");
        if (replicas.size() == 1) {
            applied.sinkTo(sink(replicaTable())).uid("orders-replica").name("orders replica");
        } else {
            // One source of every table; each table's changes to its own replica.
            for (Map.Entry<String, String> replica : replicas.entrySet()) {
                applied.filter(new OfTable(replica.getKey()))
                        .uid("changes-of-" + replica.getKey())
                        .name("changes of " + replica.getKey())
                        .sinkTo(sink(replica.getValue()))
                        .uid(replica.getValue())
                        .name(replica.getValue());
            }
        }
        job =
                env.executeAsync(
                        "tablestore-cdc demo: orders to " + String.join(", ", replicas.values()));
    }

    private static Configuration configuration() {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(2));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        // Every type in the job has a Flink serializer; fail fast if one would need Kryo.
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.setString(
                "metrics.reporter.demo.factory.class", ChannelGauges.Factory.class.getName());
        return conf;
    }

    private TablestoreCdcSource<OrderChange> source() {
        return TablestoreCdcSource.<OrderChange>builder()
                .setEndpoint(target.endpoint())
                .setInstanceName(target.instanceName())
                .setCredentials(target.accessKeyId(), target.accessKeySecret())
                .setTableName(selection.get("table.name"))
                .setTablePattern(selection.get("table.pattern"))
                .setTunnelName(tunnel)
                .setMetaTable(META_TABLE)
                .setDiscoveryInterval(Duration.ofSeconds(1))
                .setDeserializer(new OrderChangeDeserializer())
                .build();
    }

    /** The replica, written by the product's own sink ({@code TablestoreSink}). */
    private TablestoreSink<OrderChange> sink(String replicaTable) {
        return TablestoreSink.<OrderChange>builder()
                .setEndpoint(target.endpoint())
                .setInstanceName(target.instanceName())
                .setCredentials(target.accessKeyId(), target.accessKeySecret())
                .setTableName(replicaTable)
                .setConverter(new OrderChangeWrites())
                .build();
    }

    @Override
    public Optional<Throwable> failure() {
        if (job == null) {
            return Optional.empty();
        }
        try {
            JobStatus status = job.getJobStatus().get(10, TimeUnit.SECONDS);
            if (status != JobStatus.FAILED) {
                return Optional.empty();
            }
            job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
            return Optional.of(new IllegalStateException("The Flink job failed"));
        } catch (ExecutionException e) {
            return Optional.of(e.getCause());
        } catch (TimeoutException e) {
            return Optional.empty(); // a busy local cluster; asked again on the next poll
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        try {
            if (job != null) {
                job.cancel().get(30, TimeUnit.SECONDS);
                // Wait for the job to end, so its tunnel client shuts down before the emulator.
                job.getJobExecutionResult()
                        .handle((result, error) -> null)
                        .get(30, TimeUnit.SECONDS);
            }
            awaitLeasesReleased();
            awaitLocalClusterStopped();
        } catch (Exception e) {
            console.say("flink", "the job did not cancel cleanly: " + e);
        } finally {
            FlinkRun.unregister(runId);
        }
    }

    /**
     * Waits (up to 30 s) until the job's owner leases are released: the JobManager shuts a table's
     * tunnel client down and then releases its lease when it closes the source, which may come
     * after the job's result is known; the instance must still answer then.
     */
    private void awaitLeasesReleased() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        TunnelClient tunnels = target.tunnelClient();
        try (SdkMetaTableClient client =
                SdkMetaTableClient.connect(target.tablestoreEndpoint(), META_TABLE)) {
            MetaTable meta = new MetaTable(client);
            List<String> tunnelIds = new ArrayList<>();
            for (String table : replicas.keySet()) {
                tunnelIds.add(
                        tunnels.describeTunnel(new DescribeTunnelRequest(table, tunnel))
                                .getTunnelInfo()
                                .getTunnelId());
            }
            while (tunnelIds.stream().anyMatch(id -> meta.tunnel(id).owner().isPresent())
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        } finally {
            tunnels.shutdown();
        }
    }

    /**
     * Waits (up to 30 s) until the job's local cluster has stopped: it shuts itself down once the
     * job has ended, and a cluster still stopping when the demo exits logs a warning from its RPC
     * system's actors, whose threads are named after it.
     */
    private static void awaitLocalClusterStopped() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (Thread.getAllStackTraces().keySet().stream()
                        .anyMatch(t -> t.isAlive() && t.getName().contains("pekko."))
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    /** The key that keeps one order's changes (of one table) on one sink subtask, in order. */
    private static final class ByOrderId implements KeySelector<OrderChange, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(OrderChange change) {
            return change.table + "/" + change.orderId;
        }
    }

    /** The changes of one source table. */
    private static final class OfTable implements FilterFunction<OrderChange> {
        private static final long serialVersionUID = 1L;
        private final String table;

        OfTable(String table) {
            this.table = table;
        }

        @Override
        public boolean filter(OrderChange change) {
            return change.table.equals(table);
        }
    }
}

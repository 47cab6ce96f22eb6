package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.e2e.InstanceConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The read throughput of the raw SDK loop, a Spark query and a Flink job on one instance, each
 * draining the same backlog through its own stream tunnel: the benchmark's throughput drains
 * ({@link RawReadLoop}, {@link SparkDrain}, {@link FlinkDrain}) pointed at any instance, once each,
 * with no warm-up and no split.
 */
public final class InstanceThroughput {

    /** One consumer's drain of the backlog. */
    public record Figure(String consumer, long records, double seconds) {

        public double recordsPerSecond() {
            return records / seconds;
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%-6s %8d records in %7.2f s: %10.0f records/s",
                    consumer,
                    records,
                    seconds,
                    recordsPerSecond());
        }
    }

    /** How long a drain waits for records an instance shows late (FlinkDrain's own limit). */
    private static final Duration PATIENCE = Duration.ofMinutes(5);

    private final InstanceServer server;
    private final SparkSession spark;
    private final String metaTable;

    /**
     * @param connection the instance
     * @param spark the session the Spark drain runs in
     * @param metaTable the meta table both engines use
     */
    public InstanceThroughput(InstanceConnection connection, SparkSession spark, String metaTable) {
        this.server = new InstanceServer(connection);
        this.spark = spark;
        this.metaTable = metaTable;
    }

    /**
     * Creates three stream tunnels on {@code table} (an empty table with the benchmark's key,
     * {@code id} STRING, and its stream enabled), writes {@code rows} rows, then drains them with
     * each consumer in turn; every consumer must read exactly {@code rows} records.
     */
    public List<Figure> measure(String table, int rows, int rawThreads) throws Exception {
        SyncClient sync = server.newSyncClient();
        TunnelClient tunnels = server.newTunnelClient();
        try {
            BenchTable bench = new BenchTable(server, sync, tunnels, table);
            String rawTunnel = bench.createStreamTunnel("raw");
            bench.createStreamTunnel("spark");
            bench.createStreamTunnel("flink");
            bench.write(rows);
            List<Figure> figures = new ArrayList<>();
            RawReadLoop raw = new RawReadLoop(tunnels, rawThreads, "raw");
            figures.add(figure(raw.drain(rawTunnel, window(rows), rows, PATIENCE), rows));
            SparkDrain.Result spark =
                    new SparkDrain(this.spark, server)
                            .drain(table, "spark", Map.of("meta.table", metaTable));
            figures.add(figure(spark.measurement(), rows));
            Measurement flink =
                    new FlinkDrain(server)
                            .drain(
                                    FlinkDrain.builder(server, table, "flink")
                                            .setMetaTable(metaTable)
                                            .build(),
                                    rows,
                                    window(rows));
            figures.add(figure(flink, rows));
            return figures;
        } finally {
            tunnels.shutdown();
            sync.shutdown();
        }
    }

    private static CountWindow window(int rows) {
        return new CountWindow(rows, InstanceServer.NO_SERVER_CPU);
    }

    private static Figure figure(Measurement m, int rows) {
        if (m.records() != rows) {
            throw new IllegalStateException(
                    m.consumer() + " read " + m.records() + " records of the " + rows + " written");
        }
        return new Figure(m.consumer(), m.records(), m.nanos() / 1e9);
    }
}

package io.tablestorecdc.emulator.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelRequest;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How fast the unmodified SDK {@code TunnelClient} reads stream channels from the embedded
 * emulator: one channel read by one thread, then four partitions read by four threads.
 *
 * <p>A program, not a test (kept out of {@code mvn verify}). Each run connects a fresh tunnel
 * client and reads every channel from its initial checkpoint to its current end; after one warm-up
 * run, the median of three runs is printed. Usage: {@code ReadLoopBenchmark [rows]} (default
 * 200000).
 */
public final class ReadLoopBenchmark {

    private static final int RUNS = 3;
    private static final int WRITE_BATCH = 200;
    private static final String PAYLOAD = "x".repeat(48);

    private final TablestoreEmulator emulator;
    private final SyncClient sync;
    private final TunnelClient tunnels;

    private ReadLoopBenchmark(TablestoreEmulator emulator) {
        this.emulator = emulator;
        this.sync = emulator.newSyncClient();
        this.tunnels = emulator.newTunnelClient();
    }

    /** What one run read, and how long it took. */
    private record Run(long records, long bytes, long nanos) {
        double recordsPerSecond() {
            return records / (nanos / 1e9);
        }

        double megabytesPerSecond() {
            return bytes / (1024.0 * 1024.0) / (nanos / 1e9);
        }
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            ReadLoopBenchmark bench = new ReadLoopBenchmark(emulator);
            try {
                bench.runAll(rows);
            } finally {
                bench.tunnels.shutdown();
                bench.sync.shutdown();
            }
        }
    }

    private void runAll(int rows) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "ReadLoopBenchmark: %d rows, %d runs each, %d CPUs, java %s%n",
                rows,
                RUNS,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        String single = prepare("bench_single", rows, 1);
        report("1 partition, 1 thread ", measure(single, 1, rows));
        String four = prepare("bench_four", rows, 4);
        report("4 partitions, 4 threads", measure(four, 4, rows));
    }

    /** Creates the table, splits it into {@code partitions}, creates the tunnel, then writes. */
    private String prepare(String table, int rows, int partitions) throws Exception {
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        for (int p = 1; p < partitions; p++) {
            emulator.tunnels().split(table, key((long) rows * p / partitions));
        }
        String tunnelId =
                tunnels.createTunnel(new CreateTunnelRequest(table, "bench", TunnelType.Stream))
                        .getTunnelId();
        long start = System.nanoTime();
        write(table, rows);
        System.out.printf(
                Locale.ROOT,
                "  wrote %d rows into %s (%d partition(s)) in %.1f s%n",
                rows,
                table,
                partitions,
                (System.nanoTime() - start) / 1e9);
        return tunnelId;
    }

    // Four writer threads, so that preparing 200000 rows takes seconds rather than a minute.
    private void write(String table, int rows) throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> batches = new ArrayList<>();
            for (int first = 0; first < rows; first += WRITE_BATCH) {
                int from = first;
                batches.add(writers.submit(() -> writeBatch(table, from, rows)));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        } finally {
            writers.shutdownNow();
        }
    }

    private void writeBatch(String table, int first, int rows) {
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        for (int i = first; i < Math.min(rows, first + WRITE_BATCH); i++) {
            RowPutChange put = new RowPutChange(table, key(i));
            put.addColumn(new Column("n", ColumnValue.fromLong(i)));
            put.addColumn(new Column("d", ColumnValue.fromDouble(i / 3.0)));
            put.addColumn(new Column("s", ColumnValue.fromString(PAYLOAD)));
            batch.addRowChange(put);
        }
        if (!sync.batchWriteRow(batch).isAllSucceed()) {
            throw new IllegalStateException("BatchWriteRow failed for rows from " + first);
        }
    }

    private static PrimaryKey key(long i) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn(
                        "id", PrimaryKeyValue.fromString(String.format(Locale.ROOT, "row-%09d", i)))
                .build();
    }

    // One unreported warm-up run first, so that JIT compilation does not land in the first
    // measured run; every run must read every row exactly once.
    private List<Run> measure(String tunnelId, int channels, int rows) throws Exception {
        List<Run> runs = new ArrayList<>();
        for (int r = 0; r <= RUNS; r++) {
            Run run = readEverything(tunnelId, channels);
            if (run.records() != rows) {
                throw new IllegalStateException(
                        "A run read " + run.records() + " records, expected " + rows);
            }
            if (r > 0) {
                runs.add(run);
            }
        }
        return runs;
    }

    /** One run: a fresh client reads every channel from its initial checkpoint, one per thread. */
    private Run readEverything(String tunnelId, int expectedChannels) throws Exception {
        String clientId =
                tunnels.connectTunnel(
                                new ConnectTunnelRequest(
                                        tunnelId, new TunnelClientConfig(300, "bench")))
                        .getClientId();
        List<Channel> held =
                tunnels.heartbeat(new HeartbeatRequest(tunnelId, clientId, List.of()))
                        .getChannels();
        if (held.size() != expectedChannels) {
            throw new IllegalStateException(
                    "Expected " + expectedChannels + " open channels but got " + held);
        }
        ExecutorService pool = Executors.newFixedThreadPool(held.size());
        try {
            long start = System.nanoTime();
            List<Future<long[]>> reads = new ArrayList<>();
            for (Channel channel : held) {
                reads.add(pool.submit(() -> readChannel(tunnelId, clientId, channel)));
            }
            long records = 0;
            long bytes = 0;
            for (Future<long[]> read : reads) {
                long[] counts = read.get();
                records += counts[0];
                bytes += counts[1];
            }
            return new Run(records, bytes, System.nanoTime() - start);
        } finally {
            pool.shutdownNow();
            tunnels.shutdownTunnel(new ShutdownTunnelRequest(tunnelId, clientId));
        }
    }

    // Reads until the stream channel has nothing more for now: {records, response bytes}.
    private long[] readChannel(String tunnelId, String clientId, Channel channel) {
        String id = channel.getChannelId();
        String token =
                tunnels.getCheckpoint(new GetCheckpointRequest(tunnelId, clientId, id))
                        .getCheckpoint();
        long records = 0;
        long bytes = 0;
        while (token != null) {
            ReadRecordsResponse response =
                    tunnels.readRecords(new ReadRecordsRequest(tunnelId, clientId, id, token));
            records += response.getRecords().size();
            bytes += response.getMemoizedSerializedSize();
            boolean more = Boolean.TRUE.equals(response.getMayMoreRecord());
            if (!more && response.getRecords().isEmpty()) {
                break;
            }
            token = response.getNextToken();
        }
        return new long[] {records, bytes};
    }

    private static void report(String label, List<Run> runs) {
        double[] recordRates = runs.stream().mapToDouble(Run::recordsPerSecond).toArray();
        double[] byteRates = runs.stream().mapToDouble(Run::megabytesPerSecond).toArray();
        Arrays.sort(recordRates);
        Arrays.sort(byteRates);
        for (Run run : runs) {
            System.out.printf(
                    Locale.ROOT,
                    "  %s run: %d records, %.1f MB in %.2f s%n",
                    label,
                    run.records(),
                    run.bytes() / (1024.0 * 1024.0),
                    run.nanos() / 1e9);
        }
        System.out.printf(
                Locale.ROOT,
                "%s: median %.0f records/s, %.2f MB/s (min %.0f, max %.0f records/s)%n",
                label,
                recordRates[RUNS / 2],
                byteRates[RUNS / 2],
                recordRates[0],
                recordRates[RUNS - 1]);
    }
}

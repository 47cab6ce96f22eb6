package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.tunnel.TunnelService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Peak heap of a reader draining one channel of large rows, in a separate JVM with a small -Xmx
 * ({@link ReaderMemoryProbe}), for several backlog sizes: a reader holds one server page, so the
 * peak must not grow with the backlog. The emulator answers readrecords with at most {@link
 * #PAGE_BYTES} of records (the real server caps a response by size; the emulator by count).
 */
final class ReaderMemory {

    static final int PAGE_BYTES = 4 << 20;
    private static final int WRITE_BYTES = 2 << 20;

    private final BenchEmulator emulator;
    private final TablestoreEmulator inProcess;
    private final SyncClient sync;
    private final TunnelClient tunnels;

    ReaderMemory(
            BenchEmulator emulator,
            TablestoreEmulator inProcess,
            SyncClient sync,
            TunnelClient tunnels) {
        this.emulator = emulator;
        this.inProcess = inProcess;
        this.sync = sync;
        this.tunnels = tunnels;
    }

    /** One backlog drained by the reader JVM; bytes as the probe reported them. */
    record Figures(
            int backlogRows,
            int rowKb,
            int pageRecords,
            String xmx,
            long records,
            long baselineBytes,
            long peakLiveBytes,
            long peakBeforeGcBytes,
            long maxHeapBytes) {

        double backlogMb() {
            return backlogRows * (double) rowKb / 1024;
        }

        /** What reading added to the heap, at its largest. */
        double readerMb() {
            return (peakLiveBytes - baselineBytes) / (double) (1 << 20);
        }
    }

    List<Figures> measure(List<Integer> backlogs, int rowKb, String xmx) throws Exception {
        int pageRecords = Math.max(1, PAGE_BYTES / (rowKb << 10));
        List<Figures> figures = new ArrayList<>();
        inProcess.tunnels().fixReadBatchSize(pageRecords);
        try {
            for (int rows : backlogs) {
                BenchTable table = new BenchTable(emulator, sync, tunnels, "memory_" + rows);
                table.create(1, rows);
                String tunnelId = table.createStreamTunnel("memory");
                write(table.name(), rows, rowKb);
                figures.add(probe(tunnelId, rows, rowKb, pageRecords, xmx));
            }
        } finally {
            inProcess.tunnels().fixReadBatchSize(TunnelService.DEFAULT_READ_BATCH_SIZE);
        }
        return figures;
    }

    private void write(String table, int rows, int rowKb) {
        String payload = "y".repeat(rowKb << 10);
        int perRequest = Math.max(1, WRITE_BYTES / (rowKb << 10));
        for (int first = 0; first < rows; first += perRequest) {
            BatchWriteRowRequest batch = new BatchWriteRowRequest();
            for (int i = first; i < Math.min(rows, first + perRequest); i++) {
                RowPutChange put = new RowPutChange(table, BenchTable.key(i));
                put.addColumn(new Column("s", ColumnValue.fromString(payload)));
                batch.addRowChange(put);
            }
            if (!sync.batchWriteRow(batch).isAllSucceed()) {
                throw new IllegalStateException("BatchWriteRow failed for rows from " + first);
            }
        }
    }

    private Figures probe(String tunnelId, int rows, int rowKb, int pageRecords, String xmx)
            throws Exception {
        ProcessBuilder child =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx" + xmx,
                                "-XX:+UseSerialGC",
                                "-cp",
                                System.getProperty("java.class.path"),
                                ReaderMemoryProbe.class.getName(),
                                emulator.endpoint(),
                                emulator.instanceName(),
                                emulator.accessKeyId(),
                                tunnelId,
                                String.valueOf(pageRecords))
                        .redirectErrorStream(true);
        child.environment().put(ReaderMemoryProbe.SECRET_ENV, emulator.accessKeySecret());
        Process process = child.start();
        List<String> output = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                output.add(line);
            }
        }
        if (!process.waitFor(3, TimeUnit.MINUTES) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(
                    "The reader JVM failed (-Xmx" + xmx + "):\n" + String.join("\n", output));
        }
        Map<String, Long> v = parse(output);
        return new Figures(
                rows,
                rowKb,
                pageRecords,
                xmx,
                v.get("records"),
                v.get("baselineBytes"),
                v.get("peakLiveBytes"),
                v.get("peakBeforeGcBytes"),
                v.get("maxHeapBytes"));
    }

    private static Map<String, Long> parse(List<String> output) {
        String line =
                output.stream()
                        .filter(l -> l.startsWith("MEMORY "))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "The reader JVM printed no MEMORY line:\n"
                                                        + String.join("\n", output)));
        Map<String, Long> values = new HashMap<>();
        for (String pair : line.substring("MEMORY ".length()).split(" ")) {
            String[] kv = pair.split("=");
            values.put(kv[0], Long.parseLong(kv[1]));
        }
        return values;
    }
}

package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The second ceiling, {@code raw-bytes}: the raw loop's {@code readrecords} requests sent through
 * the connectors' own request path ({@link SdkTunnelProxy}: retries, error kinds, the response read
 * as the server sent it), with each response's records counted and left undecoded. What the server
 * and the request path can deliver before any record is decoded; the engines' sources do the same
 * requests and decode every record.
 */
final class RawBytesReadLoop {

    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(300);

    private final TablestoreEndpoint endpoint;
    private final int threads;
    private final String label;

    RawBytesReadLoop(TablestoreEndpoint endpoint, int threads, String label) {
        this.endpoint = endpoint;
        this.threads = threads;
        this.label = label;
    }

    /**
     * A fresh client reads every channel from its server checkpoint until it has no more, adding
     * each response's records to {@code window} as it reads them.
     */
    Measurement drain(String tunnelId, CountWindow window) throws Exception {
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint)) {
            TunnelClientId client = proxy.connect(tunnelId, "bench-raw-bytes", HEARTBEAT_TIMEOUT);
            try {
                List<Future<Long>> reads = new ArrayList<>();
                for (AssignedChannel channel : proxy.heartbeat(client, List.of())) {
                    reads.add(
                            pool.submit(
                                    () -> readChannel(proxy, client, channel.channelId(), window)));
                }
                long records = 0;
                for (Future<Long> read : reads) {
                    records += read.get();
                }
                long nanos = System.nanoTime() - start;
                return new Measurement(label, records, nanos, nanos);
            } finally {
                proxy.shutdown(client);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long readChannel(
            SdkTunnelProxy proxy, TunnelClientId client, String channelId, CountWindow window) {
        ChannelPosition position = proxy.getCheckpoint(client, channelId).position();
        long records = 0;
        while (!position.isFinished()) {
            ReadResult response = proxy.readRecords(client, channelId, position.token());
            int count = response.page().size(); // undecoded: no record is visited
            records += count;
            window.add(count);
            if (count == 0 && !response.mayMoreRecord()) {
                break; // drained: the backlog was written before the read started
            }
            position = response.next();
        }
        return records;
    }
}

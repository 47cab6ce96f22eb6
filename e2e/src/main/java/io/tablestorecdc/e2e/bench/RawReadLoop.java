package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.internal.Channel;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ConnectTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.GetCheckpointRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.HeartbeatRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ShutdownTunnelRequest;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelClientConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * The ceiling: the SDK's own readRecords loop over every channel of a tunnel, the channels shared
 * by a fixed pool of threads (as many as the engines get), with no conversion of the records.
 */
final class RawReadLoop {

    private static final long POLL_MILLIS = 100;

    private final TunnelClient tunnels;
    private final int threads;
    private final String label;

    RawReadLoop(TunnelClient tunnels, int threads, String label) {
        this.tunnels = tunnels;
        this.threads = threads;
        this.label = label;
    }

    /**
     * A fresh client reads every channel from its server checkpoint until it has no more, adding
     * each response's records to {@code window} as it reads them.
     */
    Measurement drain(String tunnelId, CountWindow window) throws Exception {
        return drain(tunnelId, window, 0, Duration.ZERO);
    }

    /**
     * As {@link #drain(String, CountWindow)}, for a server that shows a tunnel's channels and its
     * new records a little later (an instance, not the emulator): waits up to {@code patience} for
     * the channels, and a channel with no more for now is read again until the window holds {@code
     * expected} records or {@code patience} has passed.
     */
    Measurement drain(String tunnelId, CountWindow window, long expected, Duration patience)
            throws Exception {
        long start = System.nanoTime();
        long deadline = start + patience.toNanos();
        String clientId =
                tunnels.connectTunnel(
                                new ConnectTunnelRequest(
                                        tunnelId, new TunnelClientConfig(300, "bench-raw")))
                        .getClientId();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Channel> held = heldChannels(tunnelId, clientId, deadline);
            List<Future<Long>> reads = new ArrayList<>();
            for (Channel channel : held) {
                reads.add(
                        pool.submit(
                                () ->
                                        readChannel(
                                                tunnelId,
                                                clientId,
                                                channel,
                                                window,
                                                () ->
                                                        window.count() < expected
                                                                && System.nanoTime() < deadline)));
            }
            long records = 0;
            for (Future<Long> read : reads) {
                records += read.get();
            }
            long nanos = System.nanoTime() - start;
            return new Measurement(label, records, nanos, nanos);
        } finally {
            pool.shutdownNow();
            tunnels.shutdownTunnel(new ShutdownTunnelRequest(tunnelId, clientId));
        }
    }

    private List<Channel> heldChannels(String tunnelId, String clientId, long deadline)
            throws InterruptedException {
        while (true) {
            List<Channel> held =
                    tunnels.heartbeat(new HeartbeatRequest(tunnelId, clientId, List.of()))
                            .getChannels();
            if (!held.isEmpty() || System.nanoTime() >= deadline) {
                return held;
            }
            Thread.sleep(POLL_MILLIS); // polling a server that shows channels later
        }
    }

    private long readChannel(
            String tunnelId,
            String clientId,
            Channel channel,
            CountWindow window,
            BooleanSupplier waitForMore)
            throws InterruptedException {
        String id = channel.getChannelId();
        String token =
                tunnels.getCheckpoint(new GetCheckpointRequest(tunnelId, clientId, id))
                        .getCheckpoint();
        long records = 0;
        while (token != null) {
            ReadRecordsResponse response =
                    tunnels.readRecords(new ReadRecordsRequest(tunnelId, clientId, id, token));
            records += response.getRecords().size();
            window.add(response.getRecords().size());
            boolean more = Boolean.TRUE.equals(response.getMayMoreRecord());
            if (!more && response.getRecords().isEmpty()) {
                if (!waitForMore.getAsBoolean()) {
                    break;
                }
                Thread.sleep(POLL_MILLIS); // a stream shows new records a little later
            }
            token = response.getNextToken();
        }
        return records;
    }
}

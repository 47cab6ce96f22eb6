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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The ceiling: the SDK's own readRecords loop over every channel of a tunnel, the channels shared
 * by a fixed pool of threads (as many as the engines get), with no conversion of the records.
 */
final class RawReadLoop {

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
        long start = System.nanoTime();
        String clientId =
                tunnels.connectTunnel(
                                new ConnectTunnelRequest(
                                        tunnelId, new TunnelClientConfig(300, "bench-raw")))
                        .getClientId();
        List<Channel> held =
                tunnels.heartbeat(new HeartbeatRequest(tunnelId, clientId, List.of()))
                        .getChannels();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> reads = new ArrayList<>();
            for (Channel channel : held) {
                reads.add(pool.submit(() -> readChannel(tunnelId, clientId, channel, window)));
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

    private long readChannel(
            String tunnelId, String clientId, Channel channel, CountWindow window) {
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
                break;
            }
            token = response.getNextToken();
        }
        return records;
    }
}

package io.tablestorecdc.e2e.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The memory part's reader JVM (started by {@link ReaderMemory} with a small -Xmx): drains one
 * stream channel with the core {@link ChannelBatchReader} that both engines' readers wrap, in one
 * unbounded batch, and prints one {@code MEMORY key=value ...} line: the live heap sampled after a
 * full GC every half page of records, and the largest heap occupancy any GC saw before collecting.
 *
 * <p>Arguments: endpoint, instance, access key id, tunnel id, records per server page; the secret
 * comes from the environment variable {@value #SECRET_ENV}.
 */
public final class ReaderMemoryProbe {

    static final String SECRET_ENV = "TSC_BENCH_ACCESS_KEY_SECRET";

    private static final AtomicLong PEAK_BEFORE_GC = new AtomicLong();

    private ReaderMemoryProbe() {}

    public static void main(String[] args) {
        watchCollections();
        TablestoreEndpoint endpoint =
                new TablestoreEndpoint(
                        args[0],
                        args[1],
                        TablestoreCredentials.of(args[2], System.getenv(SECRET_ENV)));
        int sampleEvery = Math.max(1, Integer.parseInt(args[4]) / 2);
        try (SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint)) {
            TunnelClientId client = proxy.connect(args[3], "bench-memory", Duration.ofMinutes(1));
            String channel = openChannel(proxy, client);
            ChannelCheckpoint start =
                    ChannelCheckpoint.adopted(
                            channel,
                            ChannelType.STREAM,
                            proxy.getCheckpoint(client, channel).position());
            long baseline = liveHeap();
            ChannelBatchReader reader =
                    ChannelBatchReader.firstRead(
                            proxy, client, start, ChannelReadLimit.unbounded(), System::nanoTime);
            long records = 0;
            long peakLive = baseline;
            for (Optional<ChangeRecord> r = reader.next(); r.isPresent(); r = reader.next()) {
                if (++records % sampleEvery == 0) {
                    peakLive = Math.max(peakLive, liveHeap());
                }
            }
            proxy.shutdown(client);
            System.out.printf(
                    Locale.ROOT,
                    "MEMORY records=%d baselineBytes=%d peakLiveBytes=%d peakBeforeGcBytes=%d"
                            + " maxHeapBytes=%d%n",
                    records,
                    baseline,
                    peakLive,
                    PEAK_BEFORE_GC.get(),
                    Runtime.getRuntime().maxMemory());
        }
        System.exit(0); // the SDK's I/O threads are not daemons
    }

    private static String openChannel(SdkTunnelProxy proxy, TunnelClientId client) {
        List<AssignedChannel> channels = proxy.heartbeat(client, List.of());
        return channels.stream()
                .filter(c -> c.status() == ServerChannelStatus.OPEN)
                .map(AssignedChannel::channelId)
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "The tunnel offered no open channel: " + channels));
    }

    /** Heap in use after a full collection: what the reader really holds at this moment. */
    private static long liveHeap() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Notes, for every collection, the heap occupancy just before it (garbage included). */
    private static void watchCollections() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc)
                    .addNotificationListener(
                            (notification, handback) -> {
                                GarbageCollectionNotificationInfo info =
                                        GarbageCollectionNotificationInfo.from(
                                                (CompositeData) notification.getUserData());
                                long used = sum(info.getGcInfo().getMemoryUsageBeforeGc());
                                PEAK_BEFORE_GC.accumulateAndGet(used, Math::max);
                            },
                            n ->
                                    n.getType()
                                            .equals(
                                                    GarbageCollectionNotificationInfo
                                                            .GARBAGE_COLLECTION_NOTIFICATION),
                            null);
        }
    }

    private static long sum(Map<String, MemoryUsage> pools) {
        return ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == java.lang.management.MemoryType.HEAP)
                .map(p -> pools.get(p.getName()))
                .filter(u -> u != null)
                .mapToLong(MemoryUsage::getUsed)
                .sum();
    }
}

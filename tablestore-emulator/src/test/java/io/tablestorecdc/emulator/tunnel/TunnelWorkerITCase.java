package io.tablestorecdc.emulator.tunnel;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelStage;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import com.alicloud.openservices.tablestore.tunnel.worker.IChannelProcessor;
import com.alicloud.openservices.tablestore.tunnel.worker.ProcessRecordsInput;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelWorker;
import com.alicloud.openservices.tablestore.tunnel.worker.TunnelWorkerConfig;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SDK's stock TunnelWorker consumes tunnels through a split and a merge while writes go on:
 * nothing is lost, each key's changes arrive in order, and no child channel delivers a record
 * before its parents delivered their last.
 */
class TunnelWorkerITCase {

    private static final int KEYS = 20;
    private static final Duration STEP = Duration.ofSeconds(30);

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    /** One record as the processor saw it, stamped with its global arrival order. */
    record Delivery(long stamp, String channel, String key, long value) {}

    /** The worker's processor: records every delivery. */
    static final class Recorder implements IChannelProcessor {
        private final AtomicLong stamps = new AtomicLong();
        private final List<Delivery> deliveries = new ArrayList<>();

        @Override
        public void process(ProcessRecordsInput input) {
            for (StreamRecord r : input.getRecords()) {
                String key = r.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString();
                long value = r.getColumns().get(0).getColumn().getValue().asLong();
                synchronized (deliveries) {
                    deliveries.add(
                            new Delivery(
                                    stamps.incrementAndGet(), input.getChannelId(), key, value));
                }
            }
        }

        @Override
        public void shutdown() {}

        List<Delivery> deliveries() {
            synchronized (deliveries) {
                return List.copyOf(deliveries);
            }
        }

        List<Delivery> on(String channel) {
            return deliveries().stream().filter(d -> d.channel().equals(channel)).toList();
        }
    }

    /** Writes increasing values round-robin over the keys until stopped; remembers them. */
    static final class Writer extends Thread {
        private final String table;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Map<String, List<Long>> written = new HashMap<>();

        Writer(String table) {
            this.table = table;
        }

        @Override
        public void run() {
            long value = 1;
            while (running.get()) {
                String id = keyName((int) (value % KEYS));
                bed.put(table, id, value);
                synchronized (written) {
                    written.computeIfAbsent(id, k -> new ArrayList<>()).add(value);
                }
                value++;
                pause();
            }
        }

        private static void pause() {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        Map<String, List<Long>> stopAndGet() throws InterruptedException {
            running.set(false);
            join();
            synchronized (written) {
                return Map.copyOf(written);
            }
        }
    }

    static String keyName(int i) {
        return String.format("k%02d", i);
    }

    private static TunnelWorkerConfig config(Recorder recorder) {
        TunnelWorkerConfig config = new TunnelWorkerConfig(recorder);
        config.setHeartbeatIntervalInSec(5);
        config.setMaxRetryIntervalInMillis(200);
        return config;
    }

    private static void awaitDeliveries(Recorder recorder, String channel) {
        Await.until("records on channel " + channel, STEP, () -> !recorder.on(channel).isEmpty());
    }

    /** Splits at k10, then merges the two halves back, with the writer running throughout. */
    private static Map<String, List<Long>> splitAndMergeUnderLoad(String table, Recorder recorder)
            throws InterruptedException {
        Writer writer = new Writer(table);
        writer.start();
        awaitDeliveries(recorder, "p-0");
        assertThat(bed.emulator().tunnels().split(table, key("k10"))).containsExactly("p-1", "p-2");
        awaitDeliveries(recorder, "p-1");
        awaitDeliveries(recorder, "p-2");
        assertThat(bed.emulator().tunnels().merge(table, key("k10"))).isEqualTo("p-3");
        awaitDeliveries(recorder, "p-3");
        Map<String, List<Long>> written = writer.stopAndGet();
        Await.until(
                "every written value to arrive",
                STEP,
                () -> streamValuesByKey(recorder).equals(written));
        return written;
    }

    private static Map<String, List<Long>> streamValuesByKey(Recorder recorder) {
        Map<String, List<Long>> byKey = new HashMap<>();
        for (Delivery d : recorder.deliveries()) {
            if (!d.channel().startsWith("BaseData_")) {
                byKey.computeIfAbsent(d.key(), k -> new ArrayList<>()).add(d.value());
            }
        }
        return byKey;
    }

    private static void assertChildrenAfterParents(Recorder recorder) {
        long lastOfRoot = lastStamp(recorder, "p-0");
        assertThat(firstStamp(recorder, "p-1")).isGreaterThan(lastOfRoot);
        assertThat(firstStamp(recorder, "p-2")).isGreaterThan(lastOfRoot);
        long lastOfHalves = Math.max(lastStamp(recorder, "p-1"), lastStamp(recorder, "p-2"));
        assertThat(firstStamp(recorder, "p-3")).isGreaterThan(lastOfHalves);
    }

    private static void assertRoutedByRange(Recorder recorder) {
        assertThat(recorder.on("p-1")).allMatch(d -> d.key().compareTo("k10") < 0);
        assertThat(recorder.on("p-2")).allMatch(d -> d.key().compareTo("k10") >= 0);
    }

    private static long firstStamp(Recorder recorder, String channel) {
        return recorder.on(channel).stream().mapToLong(Delivery::stamp).min().orElseThrow();
    }

    private static long lastStamp(Recorder recorder, String channel) {
        return recorder.on(channel).stream().mapToLong(Delivery::stamp).max().orElseThrow();
    }

    /** The worker's processor: the time of every read round, empty rounds included. */
    static final class RoundClock implements IChannelProcessor {
        private final List<Long> rounds = new ArrayList<>();

        @Override
        public void process(ProcessRecordsInput input) {
            synchronized (rounds) {
                rounds.add(System.nanoTime());
            }
        }

        @Override
        public void shutdown() {}

        List<Long> gapsMillis() {
            synchronized (rounds) {
                List<Long> gaps = new ArrayList<>();
                for (int i = 1; i < rounds.size(); i++) {
                    gaps.add((rounds.get(i) - rounds.get(i - 1)) / 1_000_000);
                }
                return gaps;
            }
        }
    }

    /**
     * On an idle stream channel the worker sleeps after each read whose response says no more
     * records are waiting ({@code may_more_record} false), a sleep that starts near 10 ms and grows
     * fivefold per draw, drawn twice per read, up to {@code maxRetryIntervalInMillis} (±25 %); it
     * is installed only for a channel whose token has an iterator (the SDK's {@code
     * Utils.isStreamToken}). With a 3 s cap the rounds come about 1.25 s, then 3 s apart. A read
     * answered "more records" would come back at once, and one without the back-off would spin.
     */
    @Test
    void anIdleStreamChannelIsReadLessOftenUpToTheMaximumInterval() throws Exception {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "worker-idle", TunnelType.Stream);
        RoundClock clock = new RoundClock();
        TunnelWorkerConfig config = new TunnelWorkerConfig(clock);
        config.setHeartbeatIntervalInSec(5);
        config.setMaxRetryIntervalInMillis(3000);
        TunnelWorker worker = new TunnelWorker(tunnelId, bed.tunnels(), config);
        try {
            worker.connectAndWorking();

            Await.until(
                    "two gaps between read rounds on the idle channel",
                    Duration.ofSeconds(12),
                    () -> clock.gapsMillis().size() >= 2);

            List<Long> gaps = clock.gapsMillis();
            assertThat(gaps.get(0)).as("first gap (about 1.25 s)").isBetween(900L, 2000L);
            assertThat(gaps.get(1))
                    .as("second gap (about the 3 s maximum)")
                    .isBetween(2200L, 4500L);
        } finally {
            worker.shutdown();
            config.shutdown();
        }
    }

    @Test
    void aStreamTunnelThroughASplitAndAMerge() throws Exception {
        String table = bed.newTable("tunnel_t");
        String tunnelId = bed.createTunnel(table, "worker-stream", TunnelType.Stream);
        Recorder recorder = new Recorder();
        TunnelWorkerConfig config = config(recorder);
        TunnelWorker worker = new TunnelWorker(tunnelId, bed.tunnels(), config);
        try {
            worker.connectAndWorking();

            Map<String, List<Long>> written = splitAndMergeUnderLoad(table, recorder);

            assertThat(streamValuesByKey(recorder)).isEqualTo(written);
            assertChildrenAfterParents(recorder);
            assertRoutedByRange(recorder);
        } finally {
            worker.shutdown();
            config.shutdown();
        }
    }

    @Test
    void aBaseAndStreamTunnelReadsTheSnapshotThenTheStreamThroughASplitAndAMerge()
            throws Exception {
        String table = bed.newTable("tunnel_t");
        for (int i = 0; i < KEYS; i++) {
            bed.put(table, keyName(i), 0);
        }
        String tunnelId = bed.createTunnel(table, "worker-both", TunnelType.BaseAndStream);
        Recorder recorder = new Recorder();
        TunnelWorkerConfig config = config(recorder);
        TunnelWorker worker = new TunnelWorker(tunnelId, bed.tunnels(), config);
        try {
            worker.connectAndWorking();

            Map<String, List<Long>> written = splitAndMergeUnderLoad(table, recorder);

            List<Delivery> base = recorder.on("BaseData_p-0");
            assertThat(base).hasSize(KEYS).allMatch(d -> d.value() == 0);
            long lastBase = base.stream().mapToLong(Delivery::stamp).max().orElseThrow();
            assertThat(firstStamp(recorder, "p-0")).isGreaterThan(lastBase);
            assertThat(streamValuesByKey(recorder)).isEqualTo(written);
            assertChildrenAfterParents(recorder);
            assertRoutedByRange(recorder);
            assertThat(bed.describeTunnel(table, "worker-both").getTunnelInfo().getStage())
                    .isEqualTo(TunnelStage.ProcessStream);
        } finally {
            worker.shutdown();
            config.shutdown();
        }
    }
}

package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadAheadTunnelProxyTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel", "client");
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void theNextPageIsRequestedBeforeTheReaderAsksAndTakenWithoutASecondRequest() {
        FakeTunnelService server = pages(9, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        ReadResult first = proxy.readRecords(CLIENT, "c", "c@0");
        await(() -> server.requests().readTokens().contains("c@3"));
        ReadResult second = proxy.readRecords(CLIENT, "c", first.next().token());

        assertThat(second.records()).hasSize(3);
        assertThat(second.next()).isEqualTo(ChannelPosition.at("c@6"));
        await(() -> server.requests().readTokens().contains("c@6"));
        assertThat(server.requests().readTokens()).containsExactly("c@0", "c@3", "c@6");
    }

    @Test
    void aPageWithoutMoreDataIsNotFollowed() throws Exception {
        FakeTunnelService server = pages(3, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readRecords(CLIENT, "c", "c@0");
        threads.submit(() -> {}).get(); // an idle pool: nothing queued behind a request

        assertThat(server.requests().readTokens()).containsExactly("c@0");
    }

    @Test
    void noPageIsReadAheadPastTheRecordsTheTaskMayDeliver() {
        FakeTunnelService server = pages(12, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, 6);

        proxy.readRecords(CLIENT, "c", "c@0");
        proxy.readRecords(CLIENT, "c", "c@3");

        assertThat(server.requests().readTokens()).containsExactly("c@0", "c@3");
    }

    @Test
    void theErrorOfAPageReadAheadReachesTheReaderAsItIs() {
        FakeTunnelService server = pages(6, 3);
        server.script()
                .failReadsAt(
                        "c@3", new TunnelException(TunnelException.Kind.INVALID, "c@3 refused"));
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readRecords(CLIENT, "c", "c@0");

        assertThatThrownBy(() -> proxy.readRecords(CLIENT, "c", "c@3"))
                .isInstanceOf(TunnelException.class)
                .hasMessageContaining("c@3 refused");
    }

    @Test
    void aRequestForAnotherTokenIsSentAsUsual() {
        FakeTunnelService server = pages(9, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readAhead(CLIENT, "c", "c@3");
        ReadResult page = proxy.readRecords(CLIENT, "c", "c@0");

        assertThat(page.next()).isEqualTo(ChannelPosition.at("c@3"));
        assertThat(server.requests().readTokens()).contains("c@0");
        assertThat(proxy.readRecords(CLIENT, "c", "c@3").records()).hasSize(3);
    }

    @Test
    void aBatchReadThroughItDeliversTheSameRecordsAsWithout() {
        ChannelCheckpoint start =
                ChannelCheckpoint.adopted("c", ChannelType.STREAM, ChannelPosition.at("c@0", 2));
        ChannelReadLimit limit = new ChannelReadLimit(10, Duration.ofMinutes(1));

        List<Long> plain = drain(pages(18, 6).randomBatches(7, 6), start, limit);
        List<Long> ahead =
                drain(
                        new ReadAheadTunnelProxy(pages(18, 6).randomBatches(7, 6), threads, 12),
                        start,
                        limit);

        assertThat(ahead).hasSize(10).containsExactlyElementsOf(plain);
    }

    private static List<Long> drain(
            TunnelProxy proxy, ChannelCheckpoint start, ChannelReadLimit limit) {
        ChannelBatchReader reader =
                ChannelBatchReader.firstRead(proxy, CLIENT, start, limit, System::nanoTime);
        List<Long> out = new ArrayList<>();
        for (Optional<ChangeRecord> r = reader.next(); r.isPresent(); r = reader.next()) {
            out.add(r.get().primaryKey().get(0).value().asInteger());
        }
        return out;
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %s", DEADLINE).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Channel {@code c} of {@code records} records, answered {@code pageSize} at a time. */
    private static FakeTunnelService pages(int records, int pageSize) {
        return FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), "c")
                .appendRecords("c", records)
                .batchSize(pageSize);
    }
}

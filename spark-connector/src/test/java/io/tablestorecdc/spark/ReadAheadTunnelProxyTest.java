package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.HeldChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.ServerCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
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
        PagedChannel server = new PagedChannel(3, 3, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        ReadResult first = proxy.readRecords(CLIENT, "c", "t0");
        await(() -> server.requested.contains("t1"));
        ReadResult second = proxy.readRecords(CLIENT, "c", first.next().token());

        assertThat(second.records()).hasSize(3);
        assertThat(second.next()).isEqualTo(ChannelPosition.at("t2"));
        await(() -> server.requested.contains("t2"));
        assertThat(server.requested).containsExactly("t0", "t1", "t2");
    }

    @Test
    void aPageWithoutMoreDataIsNotFollowed() throws Exception {
        PagedChannel server = new PagedChannel(3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readRecords(CLIENT, "c", "t0");
        threads.submit(() -> {}).get(); // an idle pool: nothing queued behind a request

        assertThat(server.requested).containsExactly("t0");
    }

    @Test
    void noPageIsReadAheadPastTheRecordsTheTaskMayDeliver() {
        PagedChannel server = new PagedChannel(3, 3, 3, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, 6);

        proxy.readRecords(CLIENT, "c", "t0");
        proxy.readRecords(CLIENT, "c", "t1");

        assertThat(server.requested).containsExactly("t0", "t1");
    }

    @Test
    void theErrorOfAPageReadAheadReachesTheReaderAsItIs() {
        PagedChannel server = new PagedChannel(3, 3);
        server.failing = "t1";
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readRecords(CLIENT, "c", "t0");

        assertThatThrownBy(() -> proxy.readRecords(CLIENT, "c", "t1"))
                .isInstanceOf(TunnelException.class)
                .hasMessageContaining("t1 refused");
    }

    @Test
    void aRequestForAnotherTokenIsSentAsUsual() {
        PagedChannel server = new PagedChannel(3, 3, 3);
        ReadAheadTunnelProxy proxy = new ReadAheadTunnelProxy(server, threads, Long.MAX_VALUE);

        proxy.readAhead(CLIENT, "c", "t1");
        ReadResult page = proxy.readRecords(CLIENT, "c", "t0");

        assertThat(page.next()).isEqualTo(ChannelPosition.at("t1"));
        assertThat(server.requested).contains("t0");
        assertThat(proxy.readRecords(CLIENT, "c", "t1").records()).hasSize(3);
    }

    @Test
    void aBatchReadThroughItDeliversTheSameRecordsAsWithout() {
        ChannelCheckpoint start =
                ChannelCheckpoint.adopted("c", ChannelType.STREAM, ChannelPosition.at("t0", 2));
        ChannelReadLimit limit = new ChannelReadLimit(10, Duration.ofMinutes(1));

        List<Long> plain = drain(new PagedChannel(4, 5, 0, 3, 6), start, limit);
        List<Long> ahead =
                drain(
                        new ReadAheadTunnelProxy(new PagedChannel(4, 5, 0, 3, 6), threads, 12),
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

    /**
     * One channel served in fixed pages: token {@code t<i>} returns page i, whose records are
     * numbered across pages; every page but the last says the server may have more.
     */
    static final class PagedChannel implements TunnelProxy {
        final ConcurrentLinkedQueue<String> requested = new ConcurrentLinkedQueue<>();
        private final int[] sizes;
        volatile String failing = "";

        PagedChannel(int... sizes) {
            this.sizes = sizes;
        }

        @Override
        public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
            requested.add(token);
            if (token.equals(failing)) {
                throw new TunnelException(TunnelException.Kind.INVALID, token + " refused");
            }
            int page = Integer.parseInt(token.substring(1));
            long first = 0;
            for (int i = 0; i < page; i++) {
                first += sizes[i];
            }
            List<ChangeRecord> records = new ArrayList<>();
            for (long n = first; n < first + sizes[page]; n++) {
                records.add(record(n));
            }
            boolean last = page == sizes.length - 1;
            ChannelPosition next = ChannelPosition.at(last ? "end" : "t" + (page + 1));
            return new ReadResult(records, next, !last, 0);
        }

        private static ChangeRecord record(long n) {
            return new ChangeRecord(
                    ChangeRecord.Action.PUT,
                    List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(n))),
                    List.of(),
                    SequenceInfo.NONE,
                    "c");
        }

        @Override
        public TunnelDescription describeTunnel(String tableName, String tunnelName) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String createTunnel(String table, String tunnel, TunnelType type, TunnelStart s) {
            throw new UnsupportedOperationException();
        }

        @Override
        public TunnelClientId connect(String tunnelId, String tag, Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<AssignedChannel> heartbeat(TunnelClientId client, List<HeldChannel> held) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long checkpoint(
                TunnelClientId client, String channelId, ChannelPosition position, long seq) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void shutdown(TunnelClientId client) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }
}

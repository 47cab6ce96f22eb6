package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PageReadAheadTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("t", "c");

    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final PagesByToken server = new PagesByToken();
    private final PageReadAhead ahead = new PageReadAhead(server, thread);

    @AfterEach
    void stopThread() {
        thread.shutdownNow();
    }

    @Test
    void aPageRequestedAheadIsReadOnceAndTakenByTheReader() throws Exception {
        ahead.request(CLIENT, "a", "t1");
        server.awaitRequests(1);

        assertThat(ahead.read(CLIENT, "a", "t1").next()).isEqualTo(ChannelPosition.at("a/t1+"));
        assertThat(server.requested).containsExactly("a/t1");
    }

    @Test
    void aReadOfAnotherPageIsSentAsUsualAndLeavesThePageAhead() throws Exception {
        ahead.request(CLIENT, "b", "t0");
        server.awaitRequests(1);

        assertThat(ahead.read(CLIENT, "a", "t0").next()).isEqualTo(ChannelPosition.at("a/t0+"));
        assertThat(ahead.read(CLIENT, "b", "t0").next()).isEqualTo(ChannelPosition.at("b/t0+"));
        assertThat(server.requested).containsExactlyInAnyOrder("b/t0", "a/t0");
    }

    @Test
    void askingForTheSamePageTwiceSendsOneRequest() throws Exception {
        ahead.request(CLIENT, "a", "t1");
        ahead.request(CLIENT, "a", "t1");
        ahead.read(CLIENT, "a", "t1");

        assertThat(server.requested).containsExactly("a/t1");
    }

    @Test
    void anotherRequestDropsThePageAheadAndItsPageIsReadAgainWhenAskedFor() throws Exception {
        server.hold = new CountDownLatch(1);
        ahead.request(CLIENT, "a", "t1");
        ahead.request(CLIENT, "a", "t2");
        server.hold.countDown();

        assertThat(ahead.read(CLIENT, "a", "t1").next()).isEqualTo(ChannelPosition.at("a/t1+"));
        assertThat(ahead.read(CLIENT, "a", "t2").next()).isEqualTo(ChannelPosition.at("a/t2+"));
    }

    @Test
    void theErrorOfAPageReadAheadReachesTheReaderAsItIs() {
        server.failing = "a/t1";
        ahead.request(CLIENT, "a", "t1");

        assertThatThrownBy(() -> ahead.read(CLIENT, "a", "t1"))
                .isInstanceOf(TunnelException.class)
                .hasMessageContaining("a/t1 refused");
    }

    /** Answers page {@code t} of channel {@code c} with next token {@code c/t+}; logs requests. */
    private static final class PagesByToken extends ForwardingTunnelProxy {
        final ConcurrentLinkedQueue<String> requested = new ConcurrentLinkedQueue<>();
        volatile String failing = "";
        volatile CountDownLatch hold = new CountDownLatch(0);

        PagesByToken() {
            super(FakeTunnelService.streamTunnel());
        }

        @Override
        public ReadResult readRecords(TunnelClientId client, String channelId, String token) {
            String page = channelId + "/" + token;
            requested.add(page);
            awaitHold();
            if (page.equals(failing)) {
                throw new TunnelException(TunnelException.Kind.INVALID, page + " refused");
            }
            return new ReadResult(List.of(), ChannelPosition.at(page + "+"), true, 0);
        }

        private void awaitHold() {
            try {
                assertThat(hold.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void awaitRequests(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (requested.size() < n) {
                assertThat(System.nanoTime()).as("%d requests in time", n).isLessThan(deadline);
                Thread.sleep(1);
            }
        }
    }
}

package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.emulator.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PageReadAheadTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel-t", "c");

    private final ExecutorService thread = Executors.newSingleThreadExecutor();

    /** Channels a and b, one record per page: a read at {@code a@n} answers next {@code a@n+1}. */
    private final FakeTunnelService server =
            FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), "a")
                    .channel("b", ChannelType.STREAM)
                    .appendRecords("a", 5)
                    .appendRecords("b", 5)
                    .batchSize(1);

    private final PageReadAhead ahead = new PageReadAhead(server, thread);

    @AfterEach
    void stopThread() {
        thread.shutdownNow();
    }

    @Test
    void aPageRequestedAheadIsReadOnceAndTakenByTheReader() throws Exception {
        ahead.request(CLIENT, "a", "a@1");
        awaitRequests(1);

        assertThat(ahead.read(CLIENT, "a", "a@1").next()).isEqualTo(ChannelPosition.at("a@2"));
        assertThat(server.requests().readTokens()).containsExactly("a@1");
    }

    @Test
    void aReadOfAnotherPageIsSentAsUsualAndLeavesThePageAhead() throws Exception {
        ahead.request(CLIENT, "b", "b@0");
        awaitRequests(1);

        assertThat(ahead.read(CLIENT, "a", "a@0").next()).isEqualTo(ChannelPosition.at("a@1"));
        assertThat(ahead.read(CLIENT, "b", "b@0").next()).isEqualTo(ChannelPosition.at("b@1"));
        assertThat(server.requests().readTokens()).containsExactlyInAnyOrder("b@0", "a@0");
    }

    @Test
    void askingForTheSamePageTwiceSendsOneRequest() throws Exception {
        ahead.request(CLIENT, "a", "a@1");
        ahead.request(CLIENT, "a", "a@1");
        ahead.read(CLIENT, "a", "a@1");

        assertThat(server.requests().readTokens()).containsExactly("a@1");
    }

    @Test
    void anotherRequestDropsThePageAheadAndItsPageIsReadAgainWhenAskedFor() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        server.script().onRead(() -> await(hold));
        ahead.request(CLIENT, "a", "a@1");
        ahead.request(CLIENT, "a", "a@2");
        hold.countDown();

        assertThat(ahead.read(CLIENT, "a", "a@1").next()).isEqualTo(ChannelPosition.at("a@2"));
        assertThat(ahead.read(CLIENT, "a", "a@2").next()).isEqualTo(ChannelPosition.at("a@3"));
    }

    @Test
    void theErrorOfAPageReadAheadReachesTheReaderAsItIs() {
        server.script()
                .failReadsAt(
                        "a@1", new TunnelException(TunnelException.Kind.INVALID, "a@1 refused"));
        ahead.request(CLIENT, "a", "a@1");

        assertThatThrownBy(() -> ahead.read(CLIENT, "a", "a@1"))
                .isInstanceOf(TunnelException.class)
                .hasMessageContaining("a@1 refused");
    }

    private void awaitRequests(int n) {
        Await.until(
                n + " requests",
                Duration.ofSeconds(30),
                () -> server.requests().readTokens().size() >= n);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
